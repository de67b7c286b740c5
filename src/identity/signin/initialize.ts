/**
 * POST /api/v1/initialize: wallet sign-in and registration. The steps, in the spec's order:
 * the wallet proof (wallet-proof.ts), then the account (found, or created by registration.ts),
 * then the MFA gate (mfa-gate.ts), which finishes the sign-in with a session or leaves it
 * MFA-pending. The contract is documented on AuthService.Initialize.
 */
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { HandlerContext } from '@connectrpc/connect';
import type { InitializeRequest, InitializeResponseSchema } from '../../gen/service/v1/auth_pb.js';
import { invalidArgument, unauthenticated } from '../../platform/errors/api-error.js';
import { callInfoOf } from '../../platform/rpc/call-context.js';
import type { Account } from '../../accounts/account.js';
import type { AccountRepository } from '../../accounts/account-repository.js';
import type { AuditLog } from '../audit/audit-log.js';
import { refuseWhileLocked } from '../lockout/lockout-report.js';
import type { Lockouts } from '../lockout/lockouts.js';
import type { DpopValidator } from '../tokens/dpop.js';
import { isWalletAddress } from '../../accounts/wallet-address.js';
import { authUserOf } from './auth-user.js';
import { dpopKeyOf } from './dpop-binding.js';
import { signInMembers } from './mfa-gate.js';
import type { MfaGate, SignInOutcome } from './mfa-gate.js';
import type { Registration } from './registration.js';
import { SIGN_IN_LIMITS as LIMITS } from './sign-in-limits.js';
import type { WalletProof } from './wallet-proof.js';

type InitializeResponse = MessageInitShape<typeof InitializeResponseSchema>;

export interface InitializeDependencies {
  readonly accounts: AccountRepository;
  readonly walletProof: WalletProof;
  readonly registration: Registration;
  readonly mfaGate: MfaGate;
  readonly dpop: DpopValidator;
  readonly lockouts: Lockouts;
  readonly audit: AuditLog;
}

export function initialize(deps: InitializeDependencies) {
  const { accounts, walletProof, lockouts } = deps;
  return async (
    request: InitializeRequest,
    context: HandlerContext,
  ): Promise<InitializeResponse> => {
    const call = callInfoOf(context);
    checkLengths(request);
    const wallet = request.walletAddress.toLowerCase();
    await refuseWhileLocked(lockouts, [
      ['ip', call.clientIp],
      ['user', wallet],
    ]);
    if (request.message === '' && request.signature === '')
      return statusProbe(accounts, request.walletAddress);
    if (request.message === '' || request.signature === '')
      throw unauthenticated('Both message and signature are required');

    const proof = await walletProof.prove(call, request);
    const { verified } = proof;

    let existing: Account | null;
    let account: Account;
    let outcome: SignInOutcome;
    try {
      existing = await accounts.find(verified.address);
      account =
        existing ??
        (await deps.registration.register(request, verified.parsed, verified.address, 'wallet'));
      const dpopJkt = await dpopKeyOf(deps.dpop, context);
      outcome = await deps.mfaGate.pass(context, {
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
      await walletProof.release(proof);
      throw error;
    }
    if (outcome.mfaRequired) {
      // Only the client's failures are forgotten: the account's count also holds MFA failures,
      // which a repeated first factor must not reset.
      await lockouts.recordSuccess('ip', call.clientIp);
      return {
        success: true,
        ...signInMembers(outcome),
        user: authUserOf(account),
        isNewUser: false,
      };
    }
    await deps.audit.record(call, existing ? 'sign_in' : 'registration', {
      address: account._id,
      sessionId: outcome.session.sessionId,
    });
    await Promise.all([
      lockouts.recordSuccess('ip', call.clientIp),
      lockouts.recordSuccess('user', account._id),
    ]);
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
  if (request.message.length > LIMITS.message)
    throw invalidArgument(`message has at most ${LIMITS.message} characters`);
  if (request.signature.length > LIMITS.signature) throw invalidArgument('signature is malformed');
  if (request.username.length > LIMITS.username)
    throw invalidArgument(`username has at most ${LIMITS.username} characters`);
  if (request.deviceName.length > LIMITS.deviceName)
    throw invalidArgument(`device_name has at most ${LIMITS.deviceName} characters`);
  if (!isWalletAddress(request.walletAddress))
    throw invalidArgument('wallet_address must be 0x followed by 40 hex characters');
}

/** Without message and signature the call only says which flow the wallet needs. */
async function statusProbe(accounts: AccountRepository, walletAddress: string): Promise<never> {
  if (await accounts.find(walletAddress.toLowerCase())) {
    throw unauthenticated('This wallet has an account: a signed sign-in message is required');
  }
  throw invalidArgument('This wallet has no account yet: a username is required to register');
}
