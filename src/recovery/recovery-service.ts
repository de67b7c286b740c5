/**
 * RecoveryService (recovery.proto): each handler checks the request's shape, the signed
 * message and its signature, and calls the recovery flow it names. SetupRecovery is
 * signature-gated by the pipeline (`X-Signature`); the public RPCs are limited per IP there.
 */
import type { HandlerContext } from '@connectrpc/connect';
import type {
  ApproveRecoveryRequest,
  GetRecoveryRequestRequest,
  InitiateRecoveryRequest,
  ListGuardianRequestsRequest,
  RecoveryChallengeRequest,
  RejectRecoveryRequest,
  SetupRecoveryRequest,
} from '../gen/service/v1/recovery_pb.js';
import type { AccountRepository } from '../accounts/account-repository.js';
import { requireCaller } from '../identity/auth/caller.js';
import { isWalletAddress } from '../accounts/wallet-address.js';
import { decodeCursor, pageSize } from '../platform/api/page-cursor.js';
import { invalidArgument, notFound } from '../platform/errors/api-error.js';
import type { GuardianDecisions } from './guardian-decisions.js';
import { MAX_CODE_INPUT } from './recovery-codes.js';
import type { RecoveryCompletion } from './recovery-completion.js';
import { parseApproval, parseNewWalletProof, rejectionMessage } from './recovery-messages.js';
import type { RecoveryOpening } from './recovery-opening.js';
import type { RecoveryRequestRecord, RecoveryRequests, RequestStatus } from './recovery-request.js';
import { REQUEST_STATUSES } from './recovery-request.js';
import type { RecoverySetup } from './recovery-setup.js';
import { MAX_MESSAGE, type RecoverySignatures } from './recovery-signatures.js';
import { requestView } from './request-view.js';

const MAX_GUARDIANS = 10;
const DEFAULT_TIME_LOCK_HOURS = 72;
const TIME_LOCK_HOURS = { min: 24, max: 720 };
const MAX_REASON = 500;
const REQUEST_ID = /^[0-9a-f]{32}$/;
const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

export interface RecoveryServiceDependencies {
  readonly serviceName: string;
  readonly accounts: AccountRepository;
  readonly requests: RecoveryRequests;
  readonly setup: RecoverySetup;
  readonly opening: RecoveryOpening;
  readonly decisions: GuardianDecisions;
  readonly completion: RecoveryCompletion;
  readonly signatures: RecoverySignatures;
}

const ok = (message: string) => ({ success: true, message });

export function createRecoveryService(deps: RecoveryServiceDependencies) {
  const { serviceName, requests, signatures } = deps;

  /** A wallet address member, lowercased; 400 when malformed. */
  const walletOf = (value: string, field: string) => {
    if (!isWalletAddress(value))
      throw invalidArgument(`${field} must be a wallet address (0x + 40 hex digits)`);
    return value.toLowerCase();
  };

  /** The new-wallet proof of the service comment, signed by the new wallet (fresh, unspent). */
  async function requireNewWalletProof(
    message: string,
    signature: string,
    address: string,
    newWalletAddress: string,
  ): Promise<void> {
    if (message === '' || signature === '')
      throw invalidArgument('message and signature are required');
    const proof =
      message.length <= MAX_MESSAGE
        ? parseNewWalletProof(serviceName, message, address, newWalletAddress)
        : undefined;
    if (!proof) throw invalidArgument('message is not the new-wallet proof for these addresses');
    await signatures.require(message, signature, newWalletAddress, proof.timestampMs);
  }

  async function requireRequest(id: string): Promise<RecoveryRequestRecord> {
    const request = REQUEST_ID.test(id) ? await requests.find(id) : null;
    if (!request) throw notFound('No such recovery request');
    return request;
  }

  async function checkGuardians(owner: string, given: readonly string[]): Promise<string[]> {
    if (given.length > MAX_GUARDIANS) throw invalidArgument(`At most ${MAX_GUARDIANS} guardians`);
    const guardians = given.map((guardian) => walletOf(guardian, 'guardians'));
    if (new Set(guardians).size !== guardians.length)
      throw invalidArgument('guardians must not repeat');
    if (guardians.includes(owner)) throw invalidArgument('You cannot be your own guardian');
    for (const guardian of guardians) {
      if (!(await deps.accounts.find(guardian)))
        throw invalidArgument(`Guardian ${guardian} is not a registered account`);
    }
    return guardians;
  }

  return {
    async setupRecovery(request: SetupRecoveryRequest, context: HandlerContext) {
      const owner = requireCaller(context).address;
      const guardians = await checkGuardians(owner, request.guardians);
      const min = request.minGuardiansRequired;
      if (guardians.length === 0 ? min !== 0 : min < 1 || min > guardians.length) {
        throw invalidArgument(
          guardians.length === 0
            ? 'min_guardians_required must be 0 without guardians'
            : `min_guardians_required must be between 1 and ${guardians.length}`,
        );
      }
      const timeLockHours =
        request.timeLockHours === 0 ? DEFAULT_TIME_LOCK_HOURS : request.timeLockHours;
      if (timeLockHours < TIME_LOCK_HOURS.min || timeLockHours > TIME_LOCK_HOURS.max)
        throw invalidArgument('time_lock_hours must be between 24 and 720');
      if (request.recoveryEmailHash !== '' && !SHA256_HEX.test(request.recoveryEmailHash))
        throw invalidArgument('recovery_email_hash must be 64 hex digits');
      const recoveryEmailHash = request.recoveryEmailHash.toLowerCase();
      const configured = await deps.setup.configure(
        owner,
        { guardians, minGuardiansRequired: min, timeLockHours, recoveryEmailHash },
        new Date(),
      );
      return {
        ...ok(
          'Recovery configured: keep the backup codes somewhere safe, they are shown only once',
        ),
        backupCodes: configured.codes,
        guardians,
        minGuardiansRequired: min,
        timeLockHours,
        configuredAt: configured.configuredAt.toISOString(),
        cancelledRequestId: configured.cancelledRequestId,
      };
    },

    async initiateRecovery(request: InitiateRecoveryRequest) {
      const address = walletOf(request.address, 'address');
      const newWalletAddress = walletOf(request.newWalletAddress, 'new_wallet_address');
      if (request.recoveryEmailHash.length > 64)
        throw invalidArgument('recovery_email_hash must be 64 hex digits');
      await requireNewWalletProof(request.message, request.signature, address, newWalletAddress);
      const now = new Date();
      const opened = await deps.opening.open(
        address,
        newWalletAddress,
        request.recoveryEmailHash,
        now,
      );
      return {
        ...ok('Recovery request opened: the guardians were notified'),
        request: requestView(opened, now),
      };
    },

    async recoveryChallenge(request: RecoveryChallengeRequest) {
      const social = request.requestId !== '';
      if (social === (request.backupCode !== ''))
        throw invalidArgument('Send exactly one of request_id and backup_code');
      const now = new Date();
      if (social) {
        const found = await requireRequest(request.requestId);
        if (request.address !== '' && walletOf(request.address, 'address') !== found.address)
          throw invalidArgument('address does not match the request');
        if (
          request.newWalletAddress !== '' &&
          walletOf(request.newWalletAddress, 'new_wallet_address') !== found.newWalletAddress
        ) {
          throw invalidArgument('new_wallet_address does not match the request');
        }
        await requireNewWalletProof(
          request.message,
          request.signature,
          found.address,
          found.newWalletAddress,
        );
        const completed = await deps.completion.bySocialRequest(found, now);
        return {
          ...ok('Account recovered: sign in with the new wallet'),
          address: found.newWalletAddress,
          previousAddress: found.address,
          method: 'guardians',
          request: requestView(completed, now),
          backupCodesRemaining: 0,
        };
      }
      const address = walletOf(request.address, 'address');
      const newWalletAddress = walletOf(request.newWalletAddress, 'new_wallet_address');
      if (request.backupCode.length > MAX_CODE_INPUT)
        throw invalidArgument('backup_code is malformed');
      await requireNewWalletProof(request.message, request.signature, address, newWalletAddress);
      const remaining = await deps.completion.byBackupCode(
        address,
        newWalletAddress,
        request.backupCode,
        now,
      );
      return {
        ...ok('Account recovered: sign in with the new wallet'),
        address: newWalletAddress,
        previousAddress: address,
        method: 'backup_code',
        backupCodesRemaining: remaining,
      };
    },

    async getRecoveryRequest(request: GetRecoveryRequestRequest) {
      const found = await requireRequest(request.requestId);
      return { ...ok('Recovery request'), request: requestView(found, new Date()) };
    },

    async listGuardianRequests(request: ListGuardianRequestsRequest, context: HandlerContext) {
      const guardian = requireCaller(context).address;
      if (
        request.status !== '' &&
        !(REQUEST_STATUSES as readonly string[]).includes(request.status)
      )
        throw invalidArgument(`status must be one of ${REQUEST_STATUSES.join(', ')}`);
      const now = new Date();
      const status = request.status === '' ? undefined : (request.status as RequestStatus);
      const page = await requests.listForGuardian(
        guardian,
        status,
        now,
        pageSize(request.pageSize),
        decodeCursor(request.cursor),
      );
      return {
        ...ok('Recovery requests you guard'),
        requests: page.items.map((item) => requestView(item, now, guardian)),
        nextCursor: page.nextCursor,
      };
    },

    async approveRecovery(request: ApproveRecoveryRequest, context: HandlerContext) {
      const guardian = requireCaller(context).address;
      if (request.message === '' || request.signature === '')
        throw invalidArgument('message and signature are required');
      const found = await deps.decisions.requireGuarded(
        REQUEST_ID.test(request.requestId) ? request.requestId : '',
        guardian,
      );
      const timestampMs =
        request.message.length <= MAX_MESSAGE
          ? parseApproval(serviceName, request.message, {
              id: found._id,
              address: found.address,
              newWalletAddress: found.newWalletAddress,
            })
          : undefined;
      if (timestampMs === undefined)
        throw invalidArgument('message is not the approval of this request');
      await signatures.require(request.message, request.signature, guardian, timestampMs);
      const now = new Date();
      const decided = await deps.decisions.decide(
        found,
        { guardian, decision: 'approved', at: now, reason: '' },
        now,
      );
      return { ...ok('Approval recorded'), request: requestView(decided, now, guardian) };
    },

    async rejectRecovery(request: RejectRecoveryRequest, context: HandlerContext) {
      const guardian = requireCaller(context).address;
      const reason = request.reason;
      if (reason.trim() === '' || [...reason].length > MAX_REASON || /[\r\n]/.test(reason))
        throw invalidArgument(`reason must be one line of 1 to ${MAX_REASON} characters`);
      if (request.signature === '') throw invalidArgument('signature is required');
      const found = await deps.decisions.requireGuarded(
        REQUEST_ID.test(request.requestId) ? request.requestId : '',
        guardian,
      );
      await signatures.require(
        rejectionMessage(
          serviceName,
          { id: found._id, address: found.address, newWalletAddress: found.newWalletAddress },
          reason,
        ),
        request.signature,
        guardian,
      );
      const now = new Date();
      const decided = await deps.decisions.decide(
        found,
        { guardian, decision: 'rejected', at: now, reason },
        now,
      );
      return { ...ok('Rejection recorded'), request: requestView(decided, now, guardian) };
    },
  };
}
