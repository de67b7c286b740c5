/**
 * The port through which every wallet check reaches a chain: ERC-1271 `isValidSignature` of a
 * deployed contract wallet, or ERC-6492 for one not deployed yet. Declared here, implemented
 * once (contract-wallets.ts, built by the app from ETH_RPC_URLS) and handed to each area that
 * verifies wallets (identity, recovery, keys), so no area builds its own chain client.
 */

export type Hex = `0x${string}`;

export interface ContractSignatureCheck {
  readonly chainId: number;
  /** The wallet: the contract's (or counterfactual contract's) address. */
  readonly address: Hex;
  /** The 32-byte digest the wallet signed (EIP-191 hash of the message). */
  readonly hash: Hex;
  readonly signature: Hex;
  /** Verify at this block (a DHT peer re-checking a key binding); undefined: the latest block. */
  readonly blockNumber?: bigint;
}

export interface ContractSignatureVerdict {
  readonly valid: boolean;
  /** The block whose state decided: the latest when none was asked for. */
  readonly blockNumber: bigint;
}

export interface ContractSignatureVerifier {
  /** The chain of what names none: templates, X-Signature, recovery decisions, key bindings. */
  readonly defaultChainId: number;
  /** Whether a JSON-RPC endpoint is configured for the chain. */
  supports(chainId: number): boolean;
  /**
   * The chain's answer. Throws DependencyUnavailableError when the chain could not answer
   * (unreachable, HTTP error, timeout): the caller answers 503, never "invalid".
   */
  verify(check: ContractSignatureCheck): Promise<ContractSignatureVerdict>;
}
