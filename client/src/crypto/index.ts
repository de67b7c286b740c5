/** The end-to-end encryption module's public surface (re-exported by the SDK's index). */
export { createMessageCipher } from './e2ee-client.js';
export type { E2eeClient, E2eeOptions } from './e2ee-client.js';
export { E2eeError } from './e2ee-error.js';
export type { E2eeErrorCode } from './e2ee-error.js';
export { MemoryKeyStore } from './key-store.js';
export type { KeyStore } from './key-store.js';
export type { WalletSigner } from './wallet-signer.js';
export type { TrustRootKey } from './sender-certificate.js';
export { MAX_SKIP, MAX_SKIPPED_KEPT } from './symmetric-chain.js';
