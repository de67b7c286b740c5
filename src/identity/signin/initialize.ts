/**
 * POST /api/v1/initialize: wallet sign-in and registration, with the spec's checks in the
 * spec's order (template, binding, signature, freshness, replay), then account creation or
 * lookup, then the session. The contract is documented on AuthService.Initialize.
 */
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { HandlerContext } from '@connectrpc/connect';
import type { InitializeRequest, InitializeResponseSchema } from '../../gen/service/v1/auth_pb.js';
import { Code } from '@connectrpc/connect';
import { apiError, conflict, invalidArgument, unauthenticated } from '../../platform/errors/api-error.js';
import { callInfoOf } from '../../platform/rpc/call-context.js';
import type { CallInfo } from '../../platform/rpc/call-context.js';
import type { Account } from '../accounts/account.js';
import { checkUsername, isReservedUsername } from '../accounts/username.js';
import type { Identity } from '../identity-area.js';
import { hasProofOfWork, isWellFormedPowNonce } from '../wallet/proof-of-work.js';
import { verifySignInMessage } from '../wallet/verify-sign-in.js';
import type { SignInVerification } from '../wallet/verify-sign-in.js';
import type { ParsedSignInMessage } from '../wallet/sign-in-templates.js';
import { isWalletAddress } from '../wallet/wallet-address.js';
import { authUserOf, signInMembers, signInOrRequireMfa } from './mfa-gate.js';
import type { SignInOutcome } from './mfa-gate.js';
import { recordFailures, refuseWhileLocked } from '../lockout/lockout-report.js';
import type { LockoutTarget } from '../lockout/lockout-report.js';
import { dpopKeyOf } from './dpop-binding.js';

/** An accepted signature is spent this long (spec: replay cache 10 minutes). */
const REPLAY_WINDOW_MS = 10 * 60_000;
/** Longest members of a sign-in request (also RegisterPhone, PhoneLogin, VerifyMfa). */
export const SIGN_IN_LIMITS = { message: 1024, signature: 200, username: 64, deviceName: 64 } as const;
const LIMITS = SIGN_IN_LIMITS;

type InitializeResponse = MessageInitShape<typeof InitializeResponseSchema>;
type VerifiedSignIn = Extract<SignInVerification, { ok: true }>;

export function initialize(identity: Identity) {
  return async (request: InitializeRequest, context: HandlerContext): Promise<InitializeResponse> => {
    const call = callInfoOf(context);
    checkLengths(request);
    const wallet = request.walletAddress.toLowerCase();
    await refuseWhileLocked(identity.lockouts, [['ip', call.clientIp], ['user', wallet]]);
    if (request.message === '' && request.signature === '') return statusProbe(identity, request.walletAddress);
    if (request.message === '' || request.signature === '') throw unauthenticated('Both message and signature are required');

    const { verified, replayKey } = await proveWallet(identity, call, request);

    let existing: Account | null;
    let account: Account;
    let outcome: SignInOutcome;
    try {
      existing = await identity.accounts.find(verified.address);
      account = existing ?? (await register(identity, request, verified.parsed, verified.address, 'wallet'));
      const dpopJkt = await dpopKeyOf(identity.dpop, context);
      outcome = await signInOrRequireMfa(identity, context, {
        account,
        authMethod: 'wallet',
        deviceName: request.deviceName,
        trustedDeviceToken: request.trustedDeviceToken,
        dpopJkt,
      });
    } catch (error) {
      // A refused sign-in did not accept the signature: the client may send it again, e.g. with
      // the pow_nonce that POW_REQUIRED asked for. Holding the key until here still stops two
      // concurrent uses of one signature.
      await identity.sharedState.delete(replayKey);
      throw error;
    }
    if (outcome.mfaRequired) {
      // Only the client's failures are forgotten: the account's count also holds MFA failures,
      // which a repeated first factor must not reset.
      await identity.lockouts.recordSuccess('ip', call.clientIp);
      return { success: true, ...signInMembers(outcome), user: authUserOf(account), isNewUser: false };
    }
    await identity.audit.record(call, existing ? 'sign_in' : 'registration', { address: account._id, sessionId: outcome.session.sessionId });
    await Promise.all([identity.lockouts.recordSuccess('ip', call.clientIp), identity.lockouts.recordSuccess('user', account._id)]);
    return {
      success: true,
      ...signInMembers(outcome),
      ...(existing ? {} : { message: 'Account created' }),
      user: authUserOf(account),
      isNewUser: !existing,
    };
  };
}

function checkLengths(request: InitializeRequest): void {
  if (request.message.length > LIMITS.message) throw invalidArgument(`message has at most ${LIMITS.message} characters`);
  if (request.signature.length > LIMITS.signature) throw invalidArgument('signature is malformed');
  if (request.username.length > LIMITS.username) throw invalidArgument(`username has at most ${LIMITS.username} characters`);
  if (request.deviceName.length > LIMITS.deviceName) throw invalidArgument(`device_name has at most ${LIMITS.deviceName} characters`);
  if (!isWalletAddress(request.walletAddress)) throw invalidArgument('wallet_address must be 0x followed by 40 hex characters');
}

/** Without message and signature the call only says which flow the wallet needs. */
async function statusProbe(identity: Identity, walletAddress: string): Promise<never> {
  if (await identity.accounts.find(walletAddress.toLowerCase())) {
    throw unauthenticated('This wallet has an account: a signed sign-in message is required');
  }
  throw invalidArgument('This wallet has no account yet: a username is required to register');
}

/**
 * The wallet proof of a sign-in or registration, in the spec's order: template, binding,
 * signature, freshness (verifySignInMessage), then replay. A failure counts toward the client's
 * and the wallet's lockouts. The accepted signature is spent under `replayKey`: a caller that
 * then refuses the sign-in deletes the key, so the client may send the signature again.
 */
export async function proveWallet(
  identity: Identity,
  call: CallInfo,
  request: { walletAddress: string; username: string; message: string; signature: string },
): Promise<{ verified: VerifiedSignIn; replayKey: string }> {
  const targets: LockoutTarget[] = [['ip', call.clientIp], ['user', request.walletAddress.toLowerCase()]];
  const verified = verifySignInMessage({ ...request, serviceName: identity.config.serviceName, nowMs: Date.now() });
  if (!verified.ok) {
    await identity.audit.record(call, 'sign_in_failed', { detail: verified.reason });
    await recordFailures(identity.lockouts, targets);
    if (verified.reason === 'INVALID_ARGUMENT') throw invalidArgument(verified.detail);
    if (verified.reason === 'EXPIRED_SIGNATURE') throw unauthenticated('The signed timestamp is more than 5 minutes from server time', 'EXPIRED_SIGNATURE');
    throw unauthenticated('The signed message or its signature is not valid');
  }
  const replayKey = `signin-replay:${verified.replayKey}`;
  const fresh = await identity.sharedState.set(replayKey, '1', { ttlMs: REPLAY_WINDOW_MS, onlyIfAbsent: true });
  if (!fresh) {
    await identity.audit.record(call, 'sign_in_failed', { address: verified.address, detail: 'REPLAY_DETECTED' });
    await recordFailures(identity.lockouts, targets);
    throw unauthenticated('This signature was already used', 'REPLAY_DETECTED');
  }
  return { verified, replayKey };
}

/**
 * Creates the account of a registration template. `powNonce` undefined: exempt from proof of
 * work (a phone registration, whose cost is the verified number).
 */
export async function register(
  identity: Identity,
  request: { username: string; message: string; powNonce?: string },
  parsed: ParsedSignInMessage,
  address: string,
  origin: Account['origin'],
): Promise<Account> {
  if (parsed.kind === 'sign-in') throw invalidArgument('This wallet has no account yet: sign a registration message with a username');
  const chosen = parsed.username ?? request.username;
  const username = checkUsername(chosen);
  if (!username.valid) throw invalidArgument(`Invalid username: ${username.reason}`);
  if (isReservedUsername(username.username)) throw conflict('This username is reserved');
  const bits = identity.config.powDifficultyBits;
  if (bits > 0 && request.powNonce !== undefined) {
    if (request.powNonce !== '' && !isWellFormedPowNonce(request.powNonce)) throw invalidArgument('pow_nonce is malformed');
    if (!hasProofOfWork(request.message, request.powNonce, bits)) {
      throw apiError(Code.InvalidArgument, 'POW_REQUIRED', `Creating an account requires a proof of work of ${bits} bits`);
    }
  }
  return identity.accounts.create({
    _id: address,
    username: username.username,
    displayName: parsed.displayName ?? '',
    createdAt: new Date(),
    permissions: [],
    mfaEnabled: false,
    origin,
  });
}
