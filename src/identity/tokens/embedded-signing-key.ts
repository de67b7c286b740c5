/**
 * The signing key of a deployment that configures none: an Ed25519 private key (PKCS#8 PEM)
 * created on the first start in `<DATA_DIR>/keys/` and reused on every later start (see
 * key-file.ts). Several pods must configure a shared key instead (see KeyRingConfig).
 */
import { exportPKCS8, generateKeyPair } from 'jose';
import { keyFilePath, readOrCreateKeyFile } from './key-file.js';

const FILE_NAME = 'signing-key.pem';

export const embeddedSigningKeyPath = (dataDir: string): string => keyFilePath(dataDir, FILE_NAME);

/** The PEM of the embedded signing key, created first if there is none yet. */
export function readOrCreateEmbeddedSigningKey(dataDir: string): Promise<string> {
  return readOrCreateKeyFile(dataDir, FILE_NAME, async () => {
    const { privateKey } = await generateKeyPair('EdDSA', { extractable: true });
    return exportPKCS8(privateKey);
  });
}
