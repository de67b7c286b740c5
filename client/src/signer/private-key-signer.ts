import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import type { WalletSigner } from './wallet-signer.js';

/** A signer holding a raw secp256k1 private key (an embedded wallet, a bot, a test). */
export function privateKeySigner(privateKey: `0x${string}`): WalletSigner {
  const account = privateKeyToAccount(privateKey);
  return {
    address: async () => account.address,
    signMessage: (message) => account.signMessage({ message }),
  };
}

/** A new random private key, for an embedded wallet the application keeps itself. */
export const newPrivateKey = (): `0x${string}` => generatePrivateKey();
