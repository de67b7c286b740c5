/**
 * The push work queue, in shared state so that every api pod drains one queue and each job is
 * done once. Design: Redis sorted sets whose members are the jobs (JSON, each with a random id)
 * and whose scores are the times (epoch ms) they are due, in QUEUE_PARTS parts with hash tags of
 * their own, so that on a Redis Cluster the queue's load spreads over the shards instead of
 * loading the one shard of one key (docs/capacity.md). A job goes to the part of its recipient
 * (a wake job's first address, a delivery's subscription), so that one user's jobs are taken in
 * the order they are due and the one a coalesced burst sends is its first message's; a claim
 * takes from the parts in turn, starting where the last claim of this process stopped.
 *
 * - A claim atomically takes the due jobs and moves their score to the end of a lease: no other
 *   pod sees them until then. A pod that dies mid-job (kill -9) loses nothing: the lease runs out
 *   and the job is due again (at-least-once; a push is sent twice only if a pod dies between the
 *   push service's answer and the job's removal, or a send outlives the lease, which the send
 *   timeout prevents).
 * - A finished job is removed; a retry replaces the member (its attempt count changed) with a
 *   later score, which is also how backoff and `Retry-After` are waited out: nothing sleeps.
 *
 * Why not a list (BRPOPLPUSH) or a stream (XREADGROUP): delays and retries need a time index
 * anyway, and the sorted set gives due times, leases and retries with one structure and one
 * round trip per claim. Why not the store: ws pods (calls) have none, and a queue must outlive
 * neither the pushes' own short TTLs nor Redis: jobs lost with Redis are pushes not sent, and
 * clients still catch up when they next connect.
 */
import { randomId } from '../../platform/random/random-id.js';
import {
  SHARD_BUCKET_COUNT,
  shardBucketOf,
  shardBucketTag,
} from '../../platform/shared-state/shard-buckets.js';
import { defineScript } from '../../platform/shared-state/shared-state.js';
import type { SharedState, Unsubscribe } from '../../platform/shared-state/shared-state.js';
import type { WakeKind, WakeUp } from './wake-kinds.js';

/**
 * "Wake these users" (one event's recipients, at most WAKE_JOB_ADDRESSES of them): expanded by an
 * api pod into one delivery per subscription that needs it. One job per recipient would cost a
 * 1,000-member group message 3,000 queue commands on the queue's one shard.
 */
export interface WakeJob {
  readonly type: 'wake';
  readonly id: string;
  readonly addresses: readonly string[];
  readonly wake: WakeUp;
  /** The W3C trace context of the request that woke them, when it was traced. */
  readonly traceparent?: string | undefined;
}

/** Recipients per wake job: large groups spread over several jobs, and so over several pods' claims. */
export const WAKE_JOB_ADDRESSES = 100;

/** One push to one subscription, with everything needed to send it from any pod. */
export interface DeliveryJob {
  readonly type: 'deliver';
  readonly id: string;
  readonly subscriptionId: string;
  readonly endpoint: string;
  readonly p256dh: string;
  readonly auth: string;
  readonly kind: WakeKind;
  readonly payload: string;
  /** Sends tried so far. */
  readonly attempt: number;
  /** Epoch ms after which the push is worthless (its TTL). */
  readonly expiresAt: number;
  /** The trace context of the wake-up it came from, when that was traced. */
  readonly traceparent?: string | undefined;
}

export type PushJob = WakeJob | DeliveryJob;
export type NewJob = Omit<WakeJob, 'id'> | Omit<DeliveryJob, 'id'>;

export interface ClaimedJob {
  readonly job: PushJob;
  /** The member as stored, and the part holding it: what finishing or retrying the job refers to. */
  readonly member: string;
  readonly key: string;
  /** When it was due: how long it waited. */
  readonly dueAt: number;
}

/**
 * Parts of the queue. Part 0 keeps the key of the single queue that came before, so that jobs
 * queued by an older version during a rolling update are still taken.
 */
export const QUEUE_PARTS = 16;
export const QUEUE_KEYS: readonly string[] = Array.from({ length: QUEUE_PARTS }, (_, part) =>
  part === 0
    ? 'push:{queue}:due'
    : `push:${shardBucketTag((part * SHARD_BUCKET_COUNT) / QUEUE_PARTS)}:due`,
);

/**
 * Each part's channel, in the part's slot: a job queued due now is announced there, so that the
 * idle dispatchers of every pod take it at once (a dispatcher sleeps until its next known due
 * time, push-dispatcher.ts).
 */
export const QUEUED_CHANNELS: readonly string[] = QUEUE_KEYS.map((key) =>
  key.replace(/:due$/, ':queued'),
);

/** KEYS: the part, its channel. ARGV: due time, member, 1 to announce it (due now). */
const addJob = defineScript<[dueAt: number, member: string, announce: 0 | 1], number>({
  name: 'push-queue-add',
  keys: 2,
  lua: `redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
if ARGV[3] == '1' then redis.call(PUBLISH, KEYS[2], '1') end
return 1`,
  local: (state, [key, channel], [dueAt, member, announce]) => {
    state.zadd(key!, Number(dueAt), member!);
    if (announce === '1') state.publish(channel!, '1');
    return 1;
  },
});

/** Takes up to ARGV[3] jobs due at ARGV[1] and leases them until ARGV[2]; returns member, due, member, due… */
const claimJobs = defineScript<[now: number, leaseUntil: number, count: number], string[]>({
  name: 'push-queue-claim',
  keys: 1,
  lua: `local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, ARGV[3])
for i = 1, #due, 2 do redis.call('ZADD', KEYS[1], ARGV[2], due[i]) end
return due`,
  local: (state, [key], [now, leaseUntil, count]) => {
    const due = state.zrangeByScore(key!, Number(now), Number(count));
    for (const [member] of due) state.zadd(key!, Number(leaseUntil), member);
    return due.flatMap(([member, score]) => [member, String(score)]);
  },
});

/** Replaces a leased job by its next attempt (ARGV[3], due ARGV[2]) unless it is gone; 1 when replaced. */
const replaceJob = defineScript<[member: string, dueAt: number, next: string], number>({
  name: 'push-queue-replace',
  keys: 1,
  lua: `if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
return 1`,
  local: (state, [key], [member, dueAt, next]) => {
    if (!state.zrem(key!, member!)) return 0;
    state.zadd(key!, Number(dueAt), next!);
    return 1;
  },
});

const removeJob = defineScript<[member: string], number>({
  name: 'push-queue-remove',
  keys: 1,
  lua: `return redis.call('ZREM', KEYS[1], ARGV[1])`,
  local: (state, [key], [member]) => (state.zrem(key!, member!) ? 1 : 0),
});

/** The number of jobs (waiting, leased or waiting for a retry) and the earliest score, '-1' when empty. */
const queueStats = defineScript<[], [number, string]>({
  name: 'push-queue-stats',
  keys: 1,
  lua: `local first = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
return {redis.call('ZCARD', KEYS[1]), first[2] or '-1'}`,
  local: (state, [key]) => {
    const [first] = state.zrangeByScore(key!, Infinity, 1);
    return [state.zcard(key!), first === undefined ? '-1' : String(first[1])];
  },
});

export class PushQueue {
  /** The part the next claim starts from: claims go round the parts, so none is left waiting. */
  private nextPart = Math.floor(Math.random() * QUEUE_PARTS);
  private readonly addedListeners: (() => void)[] = [];

  constructor(private readonly state: SharedState) {}

  /** Queues `job`; one due now is announced to every pod's dispatcher (`onQueued`). */
  async add(job: NewJob, dueAt = Date.now()): Promise<void> {
    const due = dueAt <= Date.now();
    await this.store(job, dueAt, due);
    if (due) for (const listener of this.addedListeners) listener();
  }

  /**
   * Queues `job` already leased to the caller for `leaseMs`, as a claim would have left it: the
   * caller works on it at once, without a claim's round trip and re-read, and if the caller dies
   * the lease runs out and any pod takes it, as any claimed job.
   */
  async addClaimed(job: NewJob, leaseMs: number, now = Date.now()): Promise<ClaimedJob> {
    const { stored, key, member } = await this.store(job, now + leaseMs, false);
    return { job: stored, member, key, dueAt: now };
  }

  private async store(job: NewJob, score: number, announce: boolean) {
    const part =
      shardBucketOf(job.type === 'wake' ? (job.addresses[0] ?? '') : job.subscriptionId) %
      QUEUE_PARTS;
    const key = QUEUE_KEYS[part]!;
    const stored = { ...job, id: newJobId() } as PushJob;
    const member = JSON.stringify(stored);
    await this.state.run(addJob, [key, QUEUED_CHANNELS[part]!], [score, member, announce ? 1 : 0]);
    return { stored, key, member };
  }

  /**
   * Calls `listener` whenever this process has queued a job that is due: the local dispatcher
   * takes it at once, without waiting for the announcement's round trip (`onQueued`).
   */
  onAdded(listener: () => void): void {
    this.addedListeners.push(listener);
  }

  /**
   * Calls `listener` whenever any process queued a job that is due (the parts' channels), and
   * when announcements may have been lost (the subscription was down: pub/sub is at most once).
   */
  async onQueued(listener: () => void): Promise<Unsubscribe> {
    const subscribed = await Promise.allSettled(
      QUEUED_CHANNELS.map((channel) => this.state.subscribe(channel, listener, listener)),
    );
    const unsubscribeAll = async () => {
      for (const outcome of subscribed) if (outcome.status === 'fulfilled') await outcome.value();
    };
    const failed = subscribed.find((outcome) => outcome.status === 'rejected');
    if (failed) {
      await unsubscribeAll().catch(() => undefined);
      throw failed.reason;
    }
    return unsubscribeAll;
  }

  /** Up to `count` due jobs, each leased to the caller for `leaseMs`: from one part, or from the next ones while short. */
  async claim(count: number, leaseMs: number, now = Date.now()): Promise<ClaimedJob[]> {
    const claimed: ClaimedJob[] = [];
    for (let visited = 0; visited < QUEUE_PARTS && claimed.length < count; visited++) {
      const key = QUEUE_KEYS[this.nextPart]!;
      this.nextPart = (this.nextPart + 1) % QUEUE_PARTS;
      const reply = await this.state.run(
        claimJobs,
        [key],
        [now, now + leaseMs, count - claimed.length],
      );
      for (let i = 0; i < reply.length; i += 2) {
        const member = reply[i]!;
        claimed.push({ job: readJob(member), member, key, dueAt: Number(reply[i + 1]) });
      }
    }
    return claimed;
  }

  async finish(claimed: ClaimedJob): Promise<void> {
    await this.state.run(removeJob, [claimed.key], [claimed.member]);
  }

  /** Puts the job back as `next`, due at `dueAt`, in its part. */
  async retry(claimed: ClaimedJob, next: DeliveryJob, dueAt: number): Promise<void> {
    await this.state.run(replaceJob, [claimed.key], [claimed.member, dueAt, JSON.stringify(next)]);
  }

  /** Jobs held (due, leased or waiting for a retry) and the earliest due time among them (null when none). */
  async stats(): Promise<{ depth: number; earliestDueAt: number | null }> {
    const parts = await Promise.all(QUEUE_KEYS.map((key) => this.state.run(queueStats, [key], [])));
    const earliest = parts
      .map(([, first]) => first)
      .filter((first) => first !== '-1')
      .map(Number);
    return {
      depth: parts.reduce((sum, [depth]) => sum + depth, 0),
      earliestDueAt: earliest.length > 0 ? Math.min(...earliest) : null,
    };
  }
}

const newJobId = () => randomId(9);

/** A queued job; a wake job queued by a version before WAKE_JOB_ADDRESSES named one `address` (a rolling update). */
function readJob(member: string): PushJob {
  const job = JSON.parse(member) as PushJob | (Omit<WakeJob, 'addresses'> & { address: string });
  return 'address' in job
    ? { type: 'wake', id: job.id, addresses: [job.address], wake: job.wake }
    : job;
}
