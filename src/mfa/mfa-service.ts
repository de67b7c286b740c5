/**
 * MfaService (mfa.proto). Managing MFA needs a full session; CreateMfaChallenge, VerifyMfa and
 * GetMfaLockoutStatus also serve an MFA-pending sign-in (its `mfa_token`), and VerifyMfa then
 * completes that sign-in.
 */
import type { HandlerContext } from '@connectrpc/connect';
import type {
  CreateMfaChallengeRequest,
  DeleteTrustedDeviceRequest,
  DisableMfaRequest,
  EnableTotpRequest,
  ListTrustedDevicesRequest,
  RegenerateBackupCodesRequest,
  VerifyMfaRequest,
} from '../gen/service/v1/mfa_pb.js';
import { invalidArgument, notFound, unauthenticated } from '../platform/errors/api-error.js';
import { callInfoOf } from '../platform/rpc/call-context.js';
import type { AccountRepository } from '../accounts/account-repository.js';
import type { AuditLog } from '../identity/audit/audit-log.js';
import { callerKey, requireCaller } from '../identity/auth/caller.js';
import { mfaPendingCallerKey } from '../identity/auth/mfa-pending-caller.js';
import type { MfaPendingCaller } from '../identity/auth/mfa-pending-caller.js';
import { lockoutReport, refuseWhileLocked } from '../identity/lockout/lockout-report.js';
import { LOCKOUT_THRESHOLD } from '../identity/lockout/lockouts.js';
import type { Lockouts } from '../identity/lockout/lockouts.js';
import { unusedCount } from './backup-codes.js';
import { CHALLENGE_TTL_SECONDS } from './mfa-challenges.js';
import type { ChallengeHolder, MfaChallenges } from './mfa-challenges.js';
import { mfaLockout, parseAnswer } from './mfa.js';
import type { Mfa } from './mfa.js';
import type { PendingSignIns } from '../identity/signin/pending-sign-ins.js';
import type { TrustedDeviceRecord } from '../identity/signin/trusted-devices.js';
import { authUserOf } from '../identity/signin/auth-user.js';
import { dpopKeyOf } from '../identity/signin/dpop-binding.js';
import type { SessionStarter } from '../identity/signin/session-starter.js';
import { SIGN_IN_LIMITS } from '../identity/signin/sign-in-limits.js';
import type { DpopValidator } from '../identity/tokens/dpop.js';

export interface MfaServiceDependencies {
  /** SERVICE_NAME: the issuer shown in authenticator apps. */
  readonly serviceName: string;
  readonly mfa: Mfa;
  readonly challenges: MfaChallenges;
  readonly pendingSignIns: PendingSignIns;
  readonly accounts: AccountRepository;
  readonly lockouts: Lockouts;
  readonly dpop: DpopValidator;
  readonly sessionStarter: SessionStarter;
  readonly audit: AuditLog;
}

const MAX_DEVICE_NAME = SIGN_IN_LIMITS.deviceName;

/** Who is doing the MFA step: an MFA-pending sign-in, or a session (step-up). */
type MfaActor = ChallengeHolder &
  ({ pending: MfaPendingCaller; sessionId?: never } | { pending?: never; sessionId: string });

function actorOf(context: HandlerContext): MfaActor {
  const pending = context.values.get(mfaPendingCallerKey);
  if (pending) return { address: pending.address, ref: `pending:${pending.tokenId}`, pending };
  const caller = context.values.get(callerKey);
  if (!caller) throw unauthenticated('Authentication required');
  return {
    address: caller.address,
    ref: `session:${caller.sessionId}`,
    sessionId: caller.sessionId,
  };
}

const iso = (date: Date | null | undefined): string => date?.toISOString() ?? '';

const deviceView = (device: TrustedDeviceRecord) => ({
  deviceId: device._id,
  name: device.name,
  createdAt: iso(device.createdAt),
  lastUsedAt: iso(device.lastUsedAt),
  expiresAt: iso(device.expiresAt),
});

export function createMfaService(deps: MfaServiceDependencies) {
  const { mfa, challenges, accounts, lockouts, audit } = deps;

  /** Opens the session of a pending sign-in that just passed the MFA step, trusting the device if asked. */
  async function completeSignIn(
    actor: MfaActor & { pending: MfaPendingCaller },
    request: VerifyMfaRequest,
    context: HandlerContext,
    dpopJkt: string | null,
  ) {
    const signIn = await deps.pendingSignIns.complete(actor.pending);
    const account = await accounts.find(actor.address);
    if (!account) throw unauthenticated('The account no longer exists');
    const deviceName = request.deviceName || signIn.deviceName;
    const started = await deps.sessionStarter.start(context, {
      address: account._id,
      authMethod: signIn.authMethod,
      deviceName,
      dpopJkt,
    });
    const trusted =
      request.trustDevice && mfa.trustedDevices.ttlMs > 0
        ? await mfa.trustedDevices.trust(
            account._id,
            deviceName || (context.requestHeader.get('user-agent') ?? '').slice(0, MAX_DEVICE_NAME),
          )
        : undefined;
    return {
      ...started,
      signInCompleted: true,
      user: authUserOf(account),
      trustedDeviceId: trusted?.deviceId ?? '',
      trustedDeviceToken: trusted?.token ?? '',
      trustedDeviceExpiresAt: iso(trusted?.expiresAt),
    };
  }

  return {
    async setupTotp(_: unknown, context: HandlerContext) {
      const caller = requireCaller(context);
      const account = await accounts.find(caller.address);
      if (!account) throw unauthenticated('The account no longer exists');
      const issuer = deps.serviceName;
      const setup = await mfa.setup(caller.address, issuer, account.username);
      return {
        success: true,
        message: 'Add the secret to an authenticator app, then confirm with EnableTotp',
        provisioningUri: setup.provisioningUri,
        secret: setup.secret,
        issuer,
        accountName: account.username,
        expiresAt: setup.expiresAt.toISOString(),
      };
    },

    async enableTotp(request: EnableTotpRequest, context: HandlerContext) {
      const caller = requireCaller(context);
      const { backupCodes, enabledAt } = await mfa.enable(caller.address, request.code);
      return {
        success: true,
        message: 'MFA is on: store the backup codes',
        backupCodes,
        enabledAt: enabledAt.toISOString(),
      };
    },

    async getMfaStatus(_: unknown, context: HandlerContext) {
      const caller = requireCaller(context);
      const [record, trustedDevicesCount] = await Promise.all([
        mfa.find(caller.address),
        mfa.trustedDevices.count(caller.address),
      ]);
      const enabled = record?.enabledAt != null;
      return {
        success: true,
        message: enabled ? 'MFA is on' : 'MFA is off',
        enabled,
        methods: enabled ? ['totp'] : [],
        enabledAt: iso(record?.enabledAt),
        backupCodesRemaining: enabled && record ? unusedCount(record.backupCodes) : 0,
        trustedDevicesCount,
        setupPending:
          !enabled &&
          record?.pendingExpiresAt != null &&
          record.pendingExpiresAt.getTime() > Date.now(),
      };
    },

    async createMfaChallenge(_: CreateMfaChallengeRequest, context: HandlerContext) {
      const actor = actorOf(context);
      await refuseWhileLocked(lockouts, [mfaLockout(actor.address)]);
      const record = await mfa.requireOn(actor.address);
      const challenge = await challenges.create({ address: actor.address, ref: actor.ref });
      const { failures } = await lockouts.status(...mfaLockout(actor.address));
      return {
        success: true,
        message: 'Answer the challenge with VerifyMfa',
        challengeId: challenge.id,
        methods: unusedCount(record.backupCodes) > 0 ? ['totp', 'backup_code'] : ['totp'],
        expiresIn: CHALLENGE_TTL_SECONDS,
        expiresAt: challenge.expiresAt.toISOString(),
        attemptsRemaining: Math.max(0, LOCKOUT_THRESHOLD - failures),
      };
    },

    async verifyMfa(request: VerifyMfaRequest, context: HandlerContext) {
      const actor = actorOf(context);
      if (request.deviceName.length > MAX_DEVICE_NAME)
        throw invalidArgument(`device_name has at most ${MAX_DEVICE_NAME} characters`);
      const answer = parseAnswer(request, true);
      const challenge = await challenges.check(request.challengeId, actor);
      // Checked before any code is spent: a bad proof must not cost the user a code.
      const dpopJkt = actor.pending ? await dpopKeyOf(deps.dpop, context) : null;
      const factor = await mfa.verify(actor.address, answer);
      await challenges.consume(challenge);
      const completed = actor.pending
        ? await completeSignIn(actor, request, context, dpopJkt)
        : undefined;
      const sessionId = completed?.sessionId ?? actor.sessionId ?? '';
      if (completed)
        await audit.record(callInfoOf(context), 'sign_in', {
          address: actor.address,
          sessionId,
          detail: `mfa_${factor.method}`,
        });
      return {
        success: true,
        message: completed ? 'Signed in' : 'MFA verified',
        tokenType: 'Bearer',
        sessionId,
        verified: true,
        method: factor.method,
        backupCodesRemaining: factor.backupCodesRemaining,
        ...completed,
      };
    },

    async disableMfa(request: DisableMfaRequest, context: HandlerContext) {
      const caller = requireCaller(context);
      await mfa.verify(caller.address, parseAnswer(request, true));
      await mfa.disable(caller.address);
      return { success: true, message: 'MFA is off', enabled: false };
    },

    async getBackupCodesStatus(_: unknown, context: HandlerContext) {
      const record = await mfa.requireOn(requireCaller(context).address);
      const remaining = unusedCount(record.backupCodes);
      const total = record.backupCodes.length;
      return {
        success: true,
        message: `${remaining} of ${total} backup codes left`,
        total,
        remaining,
        used: total - remaining,
        generatedAt: iso(record.backupCodesGeneratedAt),
      };
    },

    async regenerateBackupCodes(request: RegenerateBackupCodesRequest, context: HandlerContext) {
      const caller = requireCaller(context);
      await mfa.verify(caller.address, parseAnswer({ code: request.code, backupCode: '' }, false));
      const { backupCodes, generatedAt } = await mfa.regenerateBackupCodes(caller.address);
      return {
        success: true,
        message: 'New backup codes issued; the previous ones no longer work',
        backupCodes,
        generatedAt: generatedAt.toISOString(),
      };
    },

    async listTrustedDevices(request: ListTrustedDevicesRequest, context: HandlerContext) {
      const { devices, nextCursor } = await mfa.trustedDevices.list(
        requireCaller(context).address,
        request.pageSize,
        request.cursor,
      );
      return {
        success: true,
        message: `${devices.length} trusted devices`,
        trustedDevices: devices.map(deviceView),
        nextCursor,
      };
    },

    async deleteTrustedDevice(request: DeleteTrustedDeviceRequest, context: HandlerContext) {
      if (request.deviceId === '' || request.deviceId.length > 64)
        throw notFound('No such trusted device');
      await mfa.trustedDevices.remove(requireCaller(context).address, request.deviceId);
      return { success: true, message: 'The device is no longer trusted' };
    },

    getMfaLockoutStatus(_: unknown, context: HandlerContext) {
      return lockoutReport(lockouts, mfaLockout(actorOf(context).address));
    },
  };
}
