/**
 * Social-recovery requests (`recovery_requests`) and their life cycle (recovery.proto):
 * `pending` (7 days to collect approvals) -> `time_locked` (until `unlocksAt`) -> `ready` (7
 * days to complete) -> `completed`; `rejected`, `expired`, `cancelled` end it too. `ready` and
 * `expired` follow from the clock: the stored status is the last one a request was written
 * with, and `statusAt` tells what it is now. An open request carries `open: true`, and a
 * unique partial index lets an account have one open request at most, on any number of pods.
 */
import type { CursorPosition } from '../platform/api/page-cursor.js';
import type {
  Collection,
  DocumentStore,
  IndexSpec,
  StoreFilter,
} from '../platform/store/document-store.js';
import { DuplicateKeyError } from '../platform/store/document-store.js';
import { newestFirstPage } from '../platform/store/newest-first-page.js';
import type { NewestFirstPage } from '../platform/store/newest-first-page.js';

export const REQUEST_STATUSES = [
  'pending',
  'time_locked',
  'ready',
  'completed',
  'rejected',
  'expired',
  'cancelled',
] as const;
export type RequestStatus = (typeof REQUEST_STATUSES)[number];
type StoredStatus = Exclude<RequestStatus, 'ready'>;

/** Each window of a request, in the recovery hours of RECOVERY_HOUR: 7 days. */
export const WINDOW_HOURS = 7 * 24;

export interface GuardianDecision {
  guardian: string;
  decision: 'approved' | 'rejected';
  at: Date;
  reason: string;
}

export interface RecoveryRequestRecord {
  /** 128-bit random, hex: the capability of GetRecoveryRequest. */
  _id: string;
  address: string;
  newWalletAddress: string;
  status: StoredStatus;
  /** Present (true) while the request is open; the unique index counts only these. */
  open?: true;
  approvalsRequired: number;
  /** The guardians when the request was opened: they decide on it. */
  guardians: string[];
  decisions: GuardianDecision[];
  approvals: number;
  rejections: number;
  timeLockHours: number;
  createdAt: Date;
  thresholdReachedAt: Date | null;
  unlocksAt: Date | null;
  /** When the current window closes (approvals, then completion). */
  expiresAt: Date;
  closedAt: Date | null;
}

export const RECOVERY_REQUESTS = 'recovery_requests';

export const recoveryRequestIndexes: IndexSpec[] = [
  {
    collection: RECOVERY_REQUESTS,
    name: 'one_open_per_account',
    key: { address: 1 },
    unique: true,
    partialFilterExpression: { open: true },
  },
  {
    collection: RECOVERY_REQUESTS,
    name: 'by_guardian',
    key: { guardians: 1, createdAt: -1, _id: 1 },
  },
  { collection: RECOVERY_REQUESTS, name: 'by_new_wallet', key: { newWalletAddress: 1 } },
];

/** The status at `now`: a time lock that ran out is `ready`, a window that closed is `expired`. */
export function statusAt(request: RecoveryRequestRecord, now: Date): RequestStatus {
  if (!request.open) return request.status;
  if (now >= request.expiresAt) return 'expired';
  if (request.status === 'time_locked' && request.unlocksAt && now >= request.unlocksAt)
    return 'ready';
  return request.status;
}

/** The stored filter of the requests whose status at `now` is `status` (undefined: the open ones). */
function statusFilter(
  status: RequestStatus | undefined,
  now: Date,
): StoreFilter<RecoveryRequestRecord> {
  const live = { open: true as const, expiresAt: { $gt: now } };
  switch (status) {
    case undefined:
      return live;
    case 'pending':
      return { ...live, status: 'pending' };
    case 'time_locked':
      return { ...live, status: 'time_locked', unlocksAt: { $gt: now } };
    case 'ready':
      return { ...live, status: 'time_locked', unlocksAt: { $lte: now } };
    case 'expired':
      return { $or: [{ status: 'expired' }, { open: true, expiresAt: { $lte: now } }] };
    default:
      return { status };
  }
}

export class RecoveryRequests {
  private readonly requests: Collection<RecoveryRequestRecord>;

  constructor(
    store: DocumentStore,
    /** RECOVERY_HOUR: the length of an hour of the windows and time locks. */
    private readonly hourMs: number,
  ) {
    this.requests = store.collection<RecoveryRequestRecord>(RECOVERY_REQUESTS);
  }

  hours(count: number): number {
    return count * this.hourMs;
  }

  find(id: string): Promise<RecoveryRequestRecord | null> {
    return this.requests.findOne({ _id: id });
  }

  /** The account's open request, after closing it when its window passed. */
  async findOpen(address: string, now: Date): Promise<RecoveryRequestRecord | null> {
    const open = await this.requests.findOne({ address, open: true });
    if (open && statusAt(open, now) === 'expired') {
      await this.close(open, 'expired', open.expiresAt);
      return null;
    }
    return open;
  }

  /** Opens the request; false when the account has an open one already. */
  async open(request: RecoveryRequestRecord): Promise<boolean> {
    try {
      await this.requests.insertOne(request);
      return true;
    } catch (error) {
      if (error instanceof DuplicateKeyError && error.index === 'one_open_per_account')
        return false;
      throw error;
    }
  }

  /** Records a guardian's decision once, while the request is open; null when it was not recorded. */
  async decide(
    id: string,
    decision: GuardianDecision,
    now: Date,
  ): Promise<RecoveryRequestRecord | null> {
    return this.requests.findOneAndUpdate(
      {
        _id: id,
        open: true,
        expiresAt: { $gt: now },
        'decisions.guardian': { $ne: decision.guardian },
      },
      {
        $push: { decisions: decision },
        $inc: decision.decision === 'approved' ? { approvals: 1 } : { rejections: 1 },
      },
      { returnDocument: 'after' },
    );
  }

  /** The threshold was reached: the time lock starts, then the completion window. */
  async startTimeLock(request: RecoveryRequestRecord, now: Date): Promise<void> {
    const unlocksAt = new Date(now.getTime() + this.hours(request.timeLockHours));
    await this.requests.updateOne(
      { _id: request._id, open: true, status: 'pending' },
      {
        $set: {
          status: 'time_locked',
          thresholdReachedAt: now,
          unlocksAt,
          expiresAt: new Date(unlocksAt.getTime() + this.hours(WINDOW_HOURS)),
        },
      },
    );
  }

  /** Ends an open request in a terminal status; false when it was closed already. */
  async close(
    request: Pick<RecoveryRequestRecord, '_id'>,
    status: Exclude<StoredStatus, 'pending' | 'time_locked'>,
    at: Date,
  ): Promise<boolean> {
    const closed = await this.requests.updateOne(
      { _id: request._id, open: true },
      { $set: { status, closedAt: at }, $unset: { open: '' } },
    );
    return closed.modifiedCount === 1;
  }

  listForGuardian(
    guardian: string,
    status: RequestStatus | undefined,
    now: Date,
    limit: number,
    after: CursorPosition | undefined,
  ): Promise<NewestFirstPage<RecoveryRequestRecord>> {
    return newestFirstPage(
      this.requests,
      { guardians: guardian, ...statusFilter(status, now) },
      'createdAt',
      limit,
      after,
    );
  }

  /**
   * Moving an account (recovery completed, by whichever way): its open request is cancelled, or
   * completed when it is the one that moved it; requests it guards name its new address.
   */
  async moveAccount(from: string, to: string, now: Date): Promise<void> {
    const open = await this.requests.findOne({ address: from, open: true });
    if (open) await this.close(open, open.newWalletAddress === to ? 'completed' : 'cancelled', now);
    for (const request of await this.requests.find({ guardians: from })) {
      const guardians = request.guardians.map((guardian) => (guardian === from ? to : guardian));
      const decisions = request.decisions.map((decision) =>
        decision.guardian === from ? { ...decision, guardian: to } : decision,
      );
      await this.requests.updateOne(
        { _id: request._id, guardians: from },
        { $set: { guardians, decisions } },
      );
    }
  }

  /** Deleting an account: its open request is cancelled; it no longer decides on others'. */
  async removeAccount(address: string, now: Date): Promise<void> {
    const open = await this.requests.findOne({ address, open: true });
    if (open) await this.close(open, 'cancelled', now);
    for (const request of await this.requests.find({
      guardians: address,
      decisions: { $not: { $elemMatch: { guardian: address } } },
    })) {
      await this.requests.updateOne({ _id: request._id }, { $pull: { guardians: address } });
    }
  }
}
