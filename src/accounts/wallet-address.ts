const WALLET_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * A wallet address as the API accepts it: `0x` plus 40 hex digits in any case. The EIP-55
 * checksum of mixed-case spellings is deliberately not enforced: the spec says "any case", and
 * the address is bound by the signature anyway.
 */
export function isWalletAddress(value: string): boolean {
  return WALLET_ADDRESS.test(value);
}
