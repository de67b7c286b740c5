/**
 * The service's VAPID key pair (RFC 8292): browsers bind each subscription to its public key
 * (`applicationServerKey`), and every push is signed with its private key. From the settings
 * (a cluster sets one pair for every pod) or, unset, a pair made once in `DATA_DIR/keys/`
 * (one node), since a key that changed would orphan every subscription.
 */
import { createECDH } from 'node:crypto';
import webPush from 'web-push';
import { readOrCreateKeyFile } from '../../identity/tokens/key-file.js';
import type { PushSettings } from '../../platform/config/settings.js';

export interface VapidKeys {
  readonly subject: string;
  /** base64url, 65-byte uncompressed P-256 point. */
  readonly publicKey: string;
  /** base64url, 32-byte P-256 scalar. */
  readonly privateKey: string;
}

const FILE_NAME = 'vapid-keys.json';

export async function loadVapidKeys(settings: PushSettings, dataDir: string): Promise<VapidKeys> {
  const pair =
    settings.vapidPublicKey !== undefined && settings.vapidPrivateKey !== undefined
      ? { publicKey: settings.vapidPublicKey, privateKey: settings.vapidPrivateKey }
      : (JSON.parse(
          await readOrCreateKeyFile(dataDir, FILE_NAME, async () =>
            JSON.stringify(webPush.generateVAPIDKeys()),
          ),
        ) as { publicKey: string; privateKey: string });
  checkPair(pair.publicKey, pair.privateKey);
  return { subject: settings.vapidSubject, ...pair };
}

/** The public key must be the private key's: a mismatch would sign pushes that every push service refuses. */
function checkPair(publicKey: string, privateKey: string): void {
  const scalar = Buffer.from(privateKey, 'base64url');
  if (scalar.length !== 32)
    throw new Error('PUSH_VAPID_PRIVATE_KEY must be a 32-byte P-256 private key, base64url');
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(scalar);
  if (!ecdh.getPublicKey().equals(Buffer.from(publicKey, 'base64url'))) {
    throw new Error('PUSH_VAPID_PUBLIC_KEY is not the public key of PUSH_VAPID_PRIVATE_KEY');
  }
}
