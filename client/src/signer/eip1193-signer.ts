import { stringToHex } from 'viem';
import type { WalletSigner } from './wallet-signer.js';

/** The one method of an EIP-1193 provider (`window.ethereum`, WalletConnect, …) the SDK uses. */
export interface Eip1193Provider {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

/**
 * A signer backed by a browser wallet: asks for its first account (`eth_requestAccounts`, which
 * prompts the user once) and signs with `personal_sign`, whose message is hex-encoded UTF-8.
 */
export function eip1193Signer(provider: Eip1193Provider): WalletSigner {
  let account: Promise<string> | undefined;
  const address = () =>
    (account ??= provider.request({ method: 'eth_requestAccounts' }).then((accounts) => {
      const [first] = accounts as string[];
      if (!first) throw new Error('the wallet offered no account');
      return first;
    }));
  return {
    address,
    signMessage: async (message) =>
      (await provider.request({
        method: 'personal_sign',
        params: [stringToHex(message), await address()],
      })) as string,
  };
}
