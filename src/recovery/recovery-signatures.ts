/**
 * The signature checks of recovery's signed messages, with the sign-in rules (recovery.proto,
 * service comment): EIP-191, low-S, the signer named, then the timestamp within 5 minutes, then
 * the signature spent in the store for 10 minutes (sign-in's spent-signature store, so a replay
 * is refused across restarts and a Redis that lost its data). A guardian or owner may be a
 * contract wallet: identity's wallet signatures verify it on the default chain (ERC-1271,
 * ERC-6492), and a chain that cannot answer is a 503.
 */
import type { WalletSignatures } from '../identity/wallet/wallet-signatures.js';
import { MAX_SIGNATURE_HEX } from '../identity/wallet/wallet-signatures.js';
import { SIGN_IN_TOLERANCE_MS } from '../identity/wallet/verify-sign-in.js';
import { invalidArgument, unauthenticated } from '../platform/errors/api-error.js';

/** Sign-in's spent-signature store: true when the signature was unspent. */
export interface SignatureSpender {
  spend(replayKey: string): Promise<boolean>;
}

/** Longest signed message and signature accepted before any work. */
export const MAX_MESSAGE = 1024;
// Contract wallets (ERC-1271 with several owners, ERC-6492 wrappers) sign with more than 65 bytes.
export const MAX_SIGNATURE = MAX_SIGNATURE_HEX + 2;

export class RecoverySignatures {
  constructor(
    private readonly spent: SignatureSpender,
    private readonly signatures: Pick<WalletSignatures, 'verify'>,
  ) {}

  /**
   * Checks that `signer` signed `message`; with `timestampMs`, also freshness and replay (the
   * signature is spent). Malformed signature: 400; any other failure: 401.
   */
  async require(
    message: string,
    signature: string,
    signer: string,
    timestampMs?: number,
  ): Promise<void> {
    if (signature.length > MAX_SIGNATURE) throw invalidArgument('signature is malformed');
    const verified = await this.signatures.verify(message, signature, signer);
    const malformed = ['MALFORMED_SIGNATURE', 'INVALID_RECOVERY_ID'];
    if (!verified.ok && malformed.includes(verified.code)) {
      throw invalidArgument(`signature is malformed: ${verified.detail}`);
    }
    if (!verified.ok) {
      throw unauthenticated("The signature is not the wallet's signature of this message");
    }
    if (timestampMs === undefined) return;
    if (Math.abs(Date.now() - timestampMs) > SIGN_IN_TOLERANCE_MS)
      throw unauthenticated(
        'The signed timestamp is more than 5 minutes from server time',
        'EXPIRED_SIGNATURE',
      );
    if (!(await this.spent.spend(verified.replayKey))) {
      throw unauthenticated('This signature was already used', 'REPLAY_DETECTED');
    }
  }
}
