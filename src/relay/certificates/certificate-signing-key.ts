/**
 * The service's Ed25519 key that signs sender certificates, and its key id: the trust root that
 * clients pin. From SENDER_CERT_SIGNING_KEY (PKCS#8 PEM; a cluster sets one shared key) or,
 * unset, a key made once in `DATA_DIR/keys/` (one node). The key id is SENDER_CERT_KEY_ID or the
 * public key's RFC 7638 thumbprint, so that a rotated key is told apart by its id.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { calculateJwkThumbprint } from 'jose';
import type { JWK } from 'jose';
import { readOrCreateKeyFile } from '../../identity/tokens/key-file.js';
import type { RelaySettings } from '../../platform/config/settings.js';

export interface CertificateSigningKey {
  readonly keyId: string;
  readonly privateKey: KeyObject;
  /** The raw 32-byte public key, base64. */
  readonly publicKey: string;
}

const FILE_NAME = 'sender-certificate-key.pem';

export async function loadCertificateSigningKey(
  settings: RelaySettings,
  dataDir: string,
): Promise<CertificateSigningKey> {
  const pem =
    settings.signingKey ??
    (await readOrCreateKeyFile(dataDir, FILE_NAME, async () =>
      generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    ));
  const privateKey = createPrivateKey(pem);
  if (privateKey.asymmetricKeyType !== 'ed25519')
    throw new Error('SENDER_CERT_SIGNING_KEY must be an Ed25519 private key (PKCS#8 PEM)');
  const publicJwk = createPublicKey(privateKey).export({ format: 'jwk' }) as JWK;
  return {
    keyId: settings.keyId ?? (await calculateJwkThumbprint(publicJwk)),
    privateKey,
    publicKey: Buffer.from(publicJwk.x as string, 'base64url').toString('base64'),
  };
}
