/**
 * How identity applies the lockouts (lockouts.ts): refusing a locked target
 * before any work, and the failed-attempt report of the lockout-status RPCs.
 */
import type { LockoutKind, Lockouts } from './lockouts.js';
import { LOCKOUT_THRESHOLD } from './lockouts.js';
import { lockedOut } from '../../platform/errors/api-error.js';

export type LockoutTarget = readonly [kind: LockoutKind, id: string];

/** `429 LOCKED_OUT` with Retry-After when any of the targets is locked. */
export async function refuseWhileLocked(
  lockouts: Lockouts,
  targets: readonly LockoutTarget[],
): Promise<void> {
  const remaining = await Promise.all(targets.map(([kind, id]) => lockouts.remainingMs(kind, id)));
  const longest = Math.max(0, ...remaining);
  if (longest > 0) throw lockedOut(longest);
}

export async function recordFailures(
  lockouts: Lockouts,
  targets: readonly LockoutTarget[],
): Promise<void> {
  await Promise.all(targets.map(([kind, id]) => lockouts.recordFailure(kind, id)));
}

export async function recordSuccesses(
  lockouts: Lockouts,
  targets: readonly LockoutTarget[],
): Promise<void> {
  await Promise.all(targets.map(([kind, id]) => lockouts.recordSuccess(kind, id)));
}

/** The members of GetMfaLockoutStatusResponse and GetPhoneLockoutStatusResponse. */
export async function lockoutReport(lockouts: Lockouts, [kind, id]: LockoutTarget) {
  const { failures, remainingMs } = await lockouts.status(kind, id);
  const locked = remainingMs > 0;
  return {
    success: true,
    message: locked ? 'Locked after too many failed attempts' : 'Not locked',
    failedAttempts: failures,
    maxAttempts: LOCKOUT_THRESHOLD,
    locked,
    lockedUntil: locked ? new Date(Date.now() + remainingMs).toISOString() : '',
    retryAfter: locked ? Math.ceil(remainingMs / 1000) : 0,
  };
}
