import { MAX_SIGNATURE_HEX } from '../wallet/wallet-signatures.js';

/** Longest members of a sign-in request: Initialize, RegisterPhone, PhoneLogin and VerifyMfa share them. */
// signature: contract wallets (ERC-1271 multi-owner, ERC-6492 wrappers) sign with more than 65
// bytes.
export const SIGN_IN_LIMITS = {
  message: 1024,
  signature: MAX_SIGNATURE_HEX + 2,
  username: 64,
  deviceName: 64,
} as const;
