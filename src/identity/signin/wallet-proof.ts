/**
 * The wallet proof of a sign-in or registration (Initialize, RegisterPhone), in the spec's
 * order: template, binding, signature, freshness (verifySignInMessage), then replay. A failure
 * is audited and counts toward the client's and the wallet's lockouts. The accepted signature
 * is spent in the store (spent-signatures.ts): a caller that then refuses the sign-in releases
 * it, so the client may send the signature again.
 */
import { invalidArgument, unauthenticated } from '../../platform/errors/api-error.js';
import type { CallInfo } from '../../platform/rpc/call-context.js';
import type { AuditLog } from '../audit/audit-log.js';
import { recordFailures } from '../lockout/lockout-report.js';
import type { LockoutTarget } from '../lockout/lockout-report.js';
import type { Lockouts } from '../lockout/lockouts.js';
import { verifySignInMessage } from '../wallet/verify-sign-in.js';
import type { SignInVerification } from '../wallet/verify-sign-in.js';
import type { SignerRecovery } from '../wallet/signer-recovery.js';
import type { SpentSignatures } from './spent-signatures.js';

export type VerifiedSignIn = Extract<SignInVerification, { ok: true }>;

export interface WalletProofDependencies {
  /** SERVICE_NAME: the brand the sign-in templates must name. */
  readonly serviceName: string;
  readonly signers: SignerRecovery;
  readonly spentSignatures: SpentSignatures;
  readonly lockouts: Lockouts;
  readonly audit: AuditLog;
}

export interface ProvenWallet {
  readonly verified: VerifiedSignIn;
  /** Where the accepted signature is spent: a caller that then refuses the sign-in releases it. */
  readonly replayKey: string;
}

export class WalletProof {
  constructor(private readonly deps: WalletProofDependencies) {}

  async prove(
    call: CallInfo,
    request: { walletAddress: string; username: string; message: string; signature: string },
  ): Promise<ProvenWallet> {
    const { audit, lockouts, spentSignatures } = this.deps;
    const targets: LockoutTarget[] = [
      ['ip', call.clientIp],
      ['user', request.walletAddress.toLowerCase()],
    ];
    const verified = await verifySignInMessage(
      { ...request, serviceName: this.deps.serviceName, nowMs: Date.now() },
      this.deps.signers,
    );
    if (!verified.ok) {
      await audit.record(call, 'sign_in_failed', { detail: verified.reason });
      await recordFailures(lockouts, targets);
      if (verified.reason === 'INVALID_ARGUMENT') throw invalidArgument(verified.detail);
      if (verified.reason === 'EXPIRED_SIGNATURE')
        throw unauthenticated(
          'The signed timestamp is more than 5 minutes from server time',
          'EXPIRED_SIGNATURE',
        );
      throw unauthenticated('The signed message or its signature is not valid');
    }
    const replayKey = verified.replayKey;
    if (!(await spentSignatures.spend(replayKey))) {
      await audit.record(call, 'sign_in_failed', {
        address: verified.address,
        detail: 'REPLAY_DETECTED',
      });
      await recordFailures(lockouts, targets);
      throw unauthenticated('This signature was already used', 'REPLAY_DETECTED');
    }
    return { verified, replayKey };
  }

  /** The sign-in was refused after the proof: the signature was not accepted, the client may send it again. */
  release(proof: ProvenWallet): Promise<void> {
    return this.deps.spentSignatures.release(proof.replayKey);
  }
}
