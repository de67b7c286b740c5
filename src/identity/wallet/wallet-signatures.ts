/**
 * The one check "did this wallet sign this message": every wallet signature of the service goes
 * through it (sign-in by template or SIWE, X-Signature, recovery decisions, key-bundle wallet
 * bindings). EOAs first, on the fast path of today (secp256k1 recovery, no network); only a
 * signature that does not recover to the wallet (another signer, not 65 bytes, an ERC-6492
 * wrapper) goes to the chain, when the chain has a JSON-RPC endpoint configured.
 *
 * Replay keys: an EOA's is its canonical signature (the spelling-independent key of today). A
 * contract wallet may accept several signatures of one message (any owner, any encoding), so
 * its key is the wallet and the signed digest: a message is accepted once per wallet, however
 * it was signed.
 */
import { bytesToHex } from '@noble/hashes/utils.js';
import { personalMessageHash } from './eip191.js';
import type { SignatureFailureCode } from './eip191.js';
import type { ContractSignatureVerifier, Hex } from './contract-signature-verifier.js';
import type { RecoveredSigner } from './signer-recovery.js';

/** Longest signature accepted, in hex digits: ERC-6492 wrappers carry the factory call. */
export const MAX_SIGNATURE_HEX = 8192;
const HEX_SIGNATURE = /^0x(?:[0-9a-fA-F]{2}){1,4096}$/;

export type WalletSignatureFailureCode = SignatureFailureCode | 'NOT_SIGNER';

export type WalletSignatureResult =
  | { readonly ok: true; readonly kind: 'eoa'; readonly replayKey: string }
  | {
      readonly ok: true;
      readonly kind: 'contract';
      readonly replayKey: string;
      readonly chainId: number;
      /** The block whose state accepted the signature. */
      readonly blockNumber: bigint;
    }
  | { readonly ok: false; readonly code: WalletSignatureFailureCode; readonly detail: string };

export interface WalletSignatureOptions {
  /** The chain of a contract wallet; default: ETH_DEFAULT_CHAIN_ID. */
  readonly chainId?: number;
  /** Verify a contract wallet at this block (a recorded key binding); default: the latest. */
  readonly blockNumber?: bigint;
}

export type RecoverSigner = (
  message: string,
  signature: string,
) => Promise<RecoveredSigner> | RecoveredSigner;

export class WalletSignatures {
  constructor(
    /** secp256k1 recovery: SignerRecovery's pool, or eip191.ts on the calling thread. */
    private readonly recover: RecoverSigner,
    /** Undefined: no chain configured, contract wallets are refused as today. */
    private readonly contracts: ContractSignatureVerifier | undefined,
  ) {}

  /** Whether a signature of `chainId` may be checked on chain (a JSON-RPC endpoint is configured). */
  contractWalletsOn(chainId = this.contracts?.defaultChainId): boolean {
    return (
      this.contracts !== undefined && chainId !== undefined && this.contracts.supports(chainId)
    );
  }

  /**
   * Whether `address` (lowercase) signed `message` with EIP-191 personal_sign, as an EOA or as
   * a contract wallet. Throws DependencyUnavailableError when the chain could not answer.
   */
  async verify(
    message: string,
    signature: string,
    address: string,
    options: WalletSignatureOptions = {},
  ): Promise<WalletSignatureResult> {
    const recovered = await this.recover(message, signature);
    if (recovered.ok && recovered.address === address) {
      return { ok: true, kind: 'eoa', replayKey: recovered.canonical };
    }
    const eoaFailure: WalletSignatureResult = recovered.ok
      ? { ok: false, code: 'NOT_SIGNER', detail: 'the signature was not made by the wallet' }
      : recovered;
    const chainId = options.chainId ?? this.contracts?.defaultChainId;
    if (chainId === undefined || !this.contracts?.supports(chainId)) return eoaFailure;
    const prefixed = signature.startsWith('0x') ? signature : `0x${signature}`;
    if (!HEX_SIGNATURE.test(prefixed)) return eoaFailure;
    const hash: Hex = `0x${bytesToHex(personalMessageHash(message))}`;
    const verdict = await this.contracts.verify({
      chainId,
      address: address as Hex,
      hash,
      signature: prefixed as Hex,
      ...(options.blockNumber === undefined ? {} : { blockNumber: options.blockNumber }),
    });
    if (!verdict.valid) {
      return {
        ok: false,
        code: 'NOT_SIGNER',
        detail: 'neither the wallet key nor the wallet contract accepts the signature',
      };
    }
    return {
      ok: true,
      kind: 'contract',
      replayKey: `contract:${chainId}:${address}:${hash.slice(2)}`,
      chainId,
      blockNumber: verdict.blockNumber,
    };
  }
}
