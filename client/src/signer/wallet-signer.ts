/**
 * Whatever holds the wallet's key: the SDK only asks it for its address and an EIP-191
 * `personal_sign` signature, so a browser wallet, a private key or a contract wallet's owner fit.
 */
export interface WalletSigner {
  /** The wallet's address (`0x` + 40 hex digits, any case). */
  address(): Promise<string>;
  /** The EIP-191 `personal_sign` signature of `message` (UTF-8), as hex. */
  signMessage(message: string): Promise<string>;
}
