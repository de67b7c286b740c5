import type { SignatureFailureCode } from './eip191.js';
import type { SignerRecovery } from './signer-recovery.js';
import { parseSignInMessage, type ParsedSignInMessage } from './sign-in-templates.js';
import { isWalletAddress } from '../../accounts/wallet-address.js';

/** How far the signed timestamp may be from server time, either way (spec, check 4). */
export const SIGN_IN_TOLERANCE_MS = 5 * 60_000;

export interface SignInAttempt {
  /** The request's `wallet_address`. */
  walletAddress: string;
  /** The request's `username`; empty counts as absent, as proto3 cannot tell them apart. */
  username?: string;
  message: string;
  signature: string;
  serviceName: string;
  nowMs: number;
  toleranceMs?: number;
}

export type SignInRejectionReason = 'UNAUTHORIZED' | 'EXPIRED_SIGNATURE' | 'INVALID_ARGUMENT';

export type SignInVerification =
  | {
      ok: true;
      parsed: ParsedSignInMessage;
      /** The signer, lowercase. */
      address: string;
      /** The canonical signature: the key under which the caller marks it spent (check 5). */
      replayKey: string;
    }
  | { ok: false; reason: SignInRejectionReason; detail: string };

// A signature that is not even well formed is a bad request (400), as the Initialize contract
// lists it; one that is well formed but does not prove the wallet is a failed sign-in (401).
const SIGNATURE_REJECTION: Record<SignatureFailureCode, SignInRejectionReason> = {
  MALFORMED_SIGNATURE: 'INVALID_ARGUMENT',
  INVALID_RECOVERY_ID: 'INVALID_ARGUMENT',
  SCALAR_OUT_OF_RANGE: 'UNAUTHORIZED',
  HIGH_S: 'UNAUTHORIZED',
  RECOVERY_FAILED: 'UNAUTHORIZED',
};

function reject(reason: SignInRejectionReason, detail: string): SignInVerification {
  return { ok: false, reason, detail };
}

/**
 * Checks 1 to 4 of the wallet login (spec, "Wallet login"), in the spec's order, so the reason
 * reported is the first check that fails: template, wallet binding, signature, freshness. The
 * template is matched before any signature work, which keeps arbitrary strings away from the
 * curve arithmetic. Replay, rate limits, CAPTCHA and proof of work need storage or request
 * context and are the caller's; it marks `replayKey` spent after accepting the sign-in. So is the
 * status probe (neither message nor signature), which must be answered before calling this.
 */
export async function verifySignInMessage(
  attempt: SignInAttempt,
  signers: Pick<SignerRecovery, 'recover'>,
): Promise<SignInVerification> {
  const { walletAddress, message, signature, nowMs, toleranceMs = SIGN_IN_TOLERANCE_MS } = attempt;

  const template = parseSignInMessage(message, attempt.serviceName);
  if (!template.ok) return reject('UNAUTHORIZED', template.detail);
  const { parsed } = template;

  if (!isWalletAddress(walletAddress)) {
    return reject('INVALID_ARGUMENT', 'wallet_address must be 0x plus 40 hex digits');
  }
  const address = walletAddress.toLowerCase();
  if (parsed.wallet.toLowerCase() !== address) {
    return reject('UNAUTHORIZED', 'the Wallet line does not match wallet_address');
  }
  if (parsed.username !== undefined && attempt.username && parsed.username !== attempt.username) {
    return reject('UNAUTHORIZED', 'the Username line does not match username');
  }

  // An empty signature is an absent one (proto3), and a message without a signature is a failed
  // sign-in (401), not a malformed request.
  if (signature === '') return reject('UNAUTHORIZED', 'signature is required with message');
  const recovered = await signers.recover(message, signature);
  if (!recovered.ok) return reject(SIGNATURE_REJECTION[recovered.code], recovered.detail);
  if (recovered.address !== address)
    return reject('UNAUTHORIZED', 'the signature was not made by wallet_address');

  if (Math.abs(nowMs - parsed.timestampMs) > toleranceMs) {
    return reject(
      'EXPIRED_SIGNATURE',
      `the Timestamp is more than ${toleranceMs} ms away from server time`,
    );
  }

  return { ok: true, parsed, address, replayKey: recovered.canonical };
}
