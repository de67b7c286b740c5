/**
 * The service's Ed25519 key that signs sender certificates, and its key id: the trust root that
 * clients pin. From SENDER_CERT_SIGNING_KEY (PKCS#8 PEM; a cluster sets one shared key) or,
 * unset, a key made once in `DATA_DIR/keys/` (one node). The key id is SENDER_CERT_KEY_ID or the
 * public key's RFC 7638 thumbprint, so that a rotated key is told apart by its id. Other
 * service keys of the same kind (the moderation area's franking key) load the same way.
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

/** Where a service's Ed25519 key comes from: the configured PEM and id, else a file of DATA_DIR. */
export interface Ed25519KeySource {
  readonly pem: string | undefined;
  readonly keyId: string | undefined;
  /** The file under `DATA_DIR/keys/` made on first start when no PEM is configured. */
  readonly fileName: string;
  /** The setting named in the error when the PEM is not an Ed25519 key. */
  readonly setting: string;
}

export function loadCertificateSigningKey(
  settings: RelaySettings,
  dataDir: string,
): Promise<CertificateSigningKey> {
  return loadEd25519SigningKey(
    {
      pem: settings.signingKey,
      keyId: settings.keyId,
      fileName: 'sender-certificate-key.pem',
      setting: 'SENDER_CERT_SIGNING_KEY',
    },
    dataDir,
  );
}

export async function loadEd25519SigningKey(
  source: Ed25519KeySource,
  dataDir: string,
): Promise<CertificateSigningKey> {
  const pem =
    source.pem ??
    (await readOrCreateKeyFile(dataDir, source.fileName, async () =>
      generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    ));
  const privateKey = createPrivateKey(pem);
  if (privateKey.asymmetricKeyType !== 'ed25519')
    throw new Error(`${source.setting} must be an Ed25519 private key (PKCS#8 PEM)`);
  const publicJwk = createPublicKey(privateKey).export({ format: 'jwk' }) as JWK;
  return {
    keyId: source.keyId ?? (await calculateJwkThumbprint(publicJwk)),
    privateKey,
    publicKey: Buffer.from(publicJwk.x as string, 'base64url').toString('base64'),
  };
}
