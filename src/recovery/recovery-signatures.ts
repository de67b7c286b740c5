/**
 * The signature checks of recovery's signed messages, with the sign-in rules (recovery.proto,
 * service comment): EIP-191, low-S, the signer named, then the timestamp within 5 minutes, then
 * the signature spent in the store for 10 minutes (sign-in's spent-signature store, so a replay
 * is refused across restarts and a Redis that lost its data).
 */
import type { SignerRecovery } from '../identity/wallet/signer-recovery.js';
import { SIGN_IN_TOLERANCE_MS } from '../identity/wallet/verify-sign-in.js';
import { invalidArgument, unauthenticated } from '../platform/errors/api-error.js';

/** Sign-in's spent-signature store: true when the signature was unspent. */
export interface SignatureSpender {
  spend(replayKey: string): Promise<boolean>;
}

/** Longest signed message and signature accepted before any work. */
export const MAX_MESSAGE = 1024;
export const MAX_SIGNATURE = 140;

export class RecoverySignatures {
  constructor(
    private readonly spent: SignatureSpender,
    private readonly signers: Pick<SignerRecovery, 'recover'>,
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
    const recovered = await this.signers.recover(message, signature);
    if (
      !recovered.ok &&
      (recovered.code === 'MALFORMED_SIGNATURE' || recovered.code === 'INVALID_RECOVERY_ID')
    )
      throw invalidArgument(`signature is malformed: ${recovered.detail}`);
    if (!recovered.ok || recovered.address !== signer)
      throw unauthenticated("The signature is not the wallet's signature of this message");
    if (timestampMs === undefined) return;
    if (Math.abs(Date.now() - timestampMs) > SIGN_IN_TOLERANCE_MS)
      throw unauthenticated(
        'The signed timestamp is more than 5 minutes from server time',
        'EXPIRED_SIGNATURE',
      );
    if (!(await this.spent.spend(recovered.canonical)))
      throw unauthenticated('This signature was already used', 'REPLAY_DETECTED');
  }
}
