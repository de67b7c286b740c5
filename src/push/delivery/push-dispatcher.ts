/**
 * Drains the push queue on an api pod (a background task the app starts and stops). Every api
 * pod runs one; the queue's leases make each job one pod's (push-queue.ts).
 *
 * A wake job becomes deliveries: the user's subscriptions whose session is still active (those
 * of sessions that are over are removed here, in case the session's end was not heard), minus
 * the devices with a live /ws connection on any ws pod, minus those pushed for the same kind of
 * event within the coalescing window (a key set-if-absent per subscription and kind: across
 * pods, one of a burst's wake-ups wins). A delivery is one send; what the push service answers
 * decides: done, removed subscription, or another try later (backoff, or `Retry-After`), until
 * MAX_ATTEMPTS or the push's TTL.
 *
 * Up to BATCH jobs are worked on at once, and a claim fills the room as soon as a quarter of the
 * jobs in hand ended (issue #29): waiting for a whole claimed batch before claiming the next one
 * left the pod idle behind its slowest push, while a claim per ended job cost, per push, a claim
 * script on every part of the queue that was short of due jobs. The deliveries a wake job makes
 * are queued already leased to this pod and sent at once while there is room (the queue keeps
 * them durable: if the pod dies their lease runs out), not claimed and read back one by one.
 *
 * An idle dispatcher sleeps until it is told of work or its next known due time comes (issue #29:
 * a 200 ms poll woke every idle pod five times a second, sixteen claims each). A job due now
 * wakes it within WORK_GATHER_MS: queued here, through the queue's listener; queued by another
 * pod (a ws pod's call wake-up, say), through the queue parts' channels (push-queue.ts). Jobs due later
 * (retries, the ends of leases, which a job whose pod died comes back at) are in the queue's
 * earliest due time, which it reads when it goes idle, at most every STATS_INTERVAL_MS (reading
 * again a second later while the queue is busy). What nobody announced (pub/sub is at most once;
 * a subscription that was down makes it claim at once when it is back) is found by the safety
 * poll: a due job waits SAFETY_POLL_MS at worst. After a restart (kill -9), the first claim and
 * read at start find what is queued: the queue is in shared state, not in the process.
 */
import { DependencyUnavailableError } from '../../platform/errors/dependency-unavailable.js';
import type { Logger } from '../../platform/logging/logger.js';
import type { OutageLog } from '../../platform/logging/outage-log.js';
import { type Clock, DueTimer, systemClock } from '../../platform/scheduling/due-timer.js';
import type { SharedState, Unsubscribe } from '../../platform/shared-state/shared-state.js';
import type { SessionConnections } from '../../events/session-connections.js';
import {
  SpanKind,
  currentTraceparent,
  inChildSpan,
  runInSpan,
  startRemoteChildSpan,
} from '../../platform/tracing/spans.js';
import type { PushMetrics } from '../push-metrics.js';
import type { PushSubscriptionRecord } from '../subscriptions/push-subscription.js';
import type { PushSubscriptions } from '../subscriptions/push-subscriptions.js';
import type { ClaimedJob, DeliveryJob, PushQueue, WakeJob } from './push-queue.js';
import type { PushSender } from './push-sender.js';
import { WAKE_KINDS, isCoalesced, payloadOf } from './wake-kinds.js';

/** The ids of an account's active sessions (identity's), for dropping subscriptions of ended ones. */
export type ActiveSessionsOf = (address: string) => Promise<readonly string[]>;

export interface PushDispatcherDependencies {
  readonly queue: PushQueue;
  readonly subscriptions: PushSubscriptions;
  readonly activeSessionsOf: ActiveSessionsOf;
  readonly connections: SessionConnections;
  readonly sharedState: SharedState;
  readonly sender: PushSender;
  readonly metrics: PushMetrics;
  readonly logger: Logger;
  readonly outages: OutageLog;
  readonly coalesceWindowMs: number;
  /** Longer than any send (PUSH_TIMEOUT), so that a job is not taken again while being sent. */
  readonly leaseMs: number;
  /** The time and timers of its sleeps (a test's, to count wake-ups); the system's by default. */
  readonly clock?: Clock;
}

/** Jobs worked on at once (and so the most one claim takes). */
const BATCH = 32;
/** While jobs are in hand, the room a claim waits for. */
const CLAIM_AT_LEAST = BATCH / 4;
/** The longest an idle dispatcher sleeps: how late a due job that nobody announced is taken. */
const SAFETY_POLL_MS = 30_000;
/**
 * How long a dispatcher woken by queued work gathers more before it claims. A claim goes round
 * all QUEUE_PARTS parts, and every direct message queues a wake job that every pod hears of:
 * woken at once, each pod claimed once per message (at 500 sends/s, 8,000 claim scripts a
 * second per pod, growing with the pods). Gathering bounds it at 10 claims a second per pod
 * whatever the rate; a push service takes seconds to reach a device anyway.
 */
const WORK_GATHER_MS = 100;
/** The queue's earliest due time (and its metrics) is read at most this often. */
const STATS_INTERVAL_MS = 1000;
export const MAX_ATTEMPTS = 8;
const MAX_BACKOFF_MS = 5 * 60_000;

export class PushDispatcher {
  private stopped = true;
  private running: Promise<void> | undefined;
  private readonly working = new Set<Promise<void>>();
  /** Ends the current wait: set while the loop waits, for room (a job ended) or for work (a job queued here). */
  private wakeIdle: (() => void) | undefined;
  private waitingFor: 'room' | 'work' = 'work';
  /** Whether a job was announced since the last claim began. */
  private workAnnounced = false;
  /** The earliest time a job this dispatcher put back (a retry, a failed job's lease) comes due. */
  private putBackDueAt = Infinity;
  private statsAt = -Infinity;
  private readonly clock: Clock;
  /** Ends a wait when the next known due time comes. */
  private readonly dueTimer: DueTimer;
  /** Set while the queue's announcements reach this dispatcher. */
  private unsubscribe: Unsubscribe | undefined;

  constructor(private readonly deps: PushDispatcherDependencies) {
    this.clock = deps.clock ?? systemClock;
    this.dueTimer = new DueTimer('push-dispatch', () => this.wakeIdle?.(), this.clock);
    deps.queue.onAdded(() => this.wake('work'));
  }

  start(): void {
    this.stopped = false;
    this.running = this.loop();
  }

  /** Resolves once the jobs in hand are done; what is left stays queued for the other pods. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeIdle?.();
    await this.running;
    await this.unsubscribe?.().catch(() => undefined);
    this.deps.sender.close();
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      if (this.unsubscribe === undefined) await this.listen();
      // The claim sees every job announced before it, and those put back that are due.
      this.workAnnounced = false;
      if (this.putBackDueAt <= this.clock.now()) this.putBackDueAt = Infinity;
      const room = BATCH - this.working.size;
      const claimed = await this.deps.queue
        .claim(room, this.deps.leaseMs)
        .catch((error: unknown) => {
          this.report(error, 'push queue not read');
          return [];
        });
      for (const job of claimed) this.track(this.work(job));
      // Short of what was asked: nothing more is due; wait for a job queued or the next due time.
      // Full or nearly: wait for room for a claim worth its round trips. Otherwise claim again.
      if (claimed.length < room) await this.idle('work', await this.nextDueAt());
      else if (BATCH - this.working.size < CLAIM_AT_LEAST)
        await this.idle('room', await this.nextDueAt());
    }
    // Jobs in hand may still start deliveries of their own.
    while (this.working.size > 0) await Promise.all(this.working);
  }

  private track(job: Promise<void>): void {
    this.working.add(job);
    void job.finally(() => {
      this.working.delete(job);
      this.wake('room');
    });
  }

  private async work(claimed: ClaimedJob): Promise<void> {
    this.deps.metrics.jobWait.observe(Math.max(0, Date.now() - claimed.dueAt) / 1000);
    const { job } = claimed;
    const span = startRemoteChildSpan(job.traceparent, `push ${job.type}`, SpanKind.CONSUMER, {
      'push.job': job.type,
      'push.kind': job.type === 'wake' ? job.wake.kind : job.kind,
      'push.attempt': job.type === 'wake' ? 0 : job.attempt,
    });
    await runInSpan(span, () => this.workOn(claimed));
  }

  private async workOn(claimed: ClaimedJob): Promise<void> {
    try {
      if (claimed.job.type === 'wake') await this.expand(claimed.job);
      else if (!(await this.deliver(claimed, claimed.job))) return;
      await this.deps.queue.finish(claimed);
    } catch (error) {
      // The job stays leased and is taken again when the lease runs out.
      this.report(error, 'push job failed; it is tried again after its lease');
      this.putBack(this.clock.now() + this.deps.leaseMs);
    }
  }

  /**
   * Every recipient of the job at once; if one fails, the whole job is taken again after its
   * lease, and the coalescing window keeps the recipients already woken from a second push.
   */
  private async expand(job: WakeJob): Promise<void> {
    await Promise.all(job.addresses.map((address) => this.wakeUser(address, job)));
  }

  private async wakeUser(address: string, job: WakeJob): Promise<void> {
    const subscriptions = await this.deps.subscriptions.forAccount(address);
    if (subscriptions.length === 0) return;
    const active = new Set(await this.deps.activeSessionsOf(address));
    const ended = [
      ...new Set(subscriptions.filter((s) => !active.has(s.sessionId)).map((s) => s.sessionId)),
    ];
    if (ended.length > 0)
      this.deps.metrics.subscriptionsRemoved.inc(
        { reason: 'session_ended' },
        await this.deps.subscriptions.removeOfSessions(ended),
      );
    await Promise.all(
      subscriptions
        .filter((s) => active.has(s.sessionId))
        .map((subscription) => this.wakeDevice(subscription, job)),
    );
  }

  private async wakeDevice(subscription: PushSubscriptionRecord, job: WakeJob): Promise<void> {
    const { kind } = job.wake;
    if (await this.deps.connections.isConnected(subscription.sessionId)) {
      this.deps.metrics.skipped.inc({ reason: 'connected' });
      return;
    }
    const quietKey = `push:quiet:${subscription._id}:${kind}`;
    if (
      isCoalesced(kind) &&
      !(await this.deps.sharedState.set(quietKey, '1', {
        ttlMs: this.deps.coalesceWindowMs,
        onlyIfAbsent: true,
      }))
    ) {
      this.deps.metrics.skipped.inc({ reason: 'coalesced' });
      return;
    }
    await this.queueDelivery({
      type: 'deliver',
      subscriptionId: subscription._id,
      endpoint: subscription.endpoint,
      p256dh: subscription.p256dh,
      auth: subscription.auth,
      kind,
      payload: payloadOf(job.wake),
      attempt: 0,
      expiresAt: Date.now() + WAKE_KINDS[kind].ttlSeconds * 1000,
      traceparent: currentTraceparent(),
    });
  }

  /**
   * Queues a delivery; while there is room, leased to this pod and worked on at once. Resolves
   * once it is queued (the wake job is done only then), not when it is sent.
   */
  private async queueDelivery(delivery: Omit<DeliveryJob, 'id'>): Promise<void> {
    if (this.working.size >= BATCH) return this.deps.queue.add(delivery);
    const queued = this.deps.queue.addClaimed(delivery, this.deps.leaseMs);
    // Tracked before the write resolves, so that the room counts it at once.
    this.track(
      queued.then(
        (claimed) => this.work(claimed),
        () => undefined,
      ),
    );
    await queued;
  }

  /** Sends; answers whether the job is done (false: it was put back for a retry). */
  private async deliver(claimed: ClaimedJob, job: DeliveryJob): Promise<boolean> {
    const { metrics } = this.deps;
    if (Date.now() >= job.expiresAt) {
      metrics.failed.inc({ reason: 'expired' });
      return true;
    }
    // A client span of ours; the push service itself is never sent our trace context.
    const result = await inChildSpan('push send', { 'push.kind': job.kind }, () =>
      this.deps.sender.send(job),
    );
    if (result.outcome === 'sent') {
      metrics.sent.inc({ kind: job.kind });
      return true;
    }
    if (result.outcome !== 'retry') {
      const removed = await this.deps.subscriptions.removeGone(job.subscriptionId, job);
      if (removed) metrics.subscriptionsRemoved.inc({ reason: result.outcome });
      this.deps.logger.info(
        { subscriptionId: job.subscriptionId, status: result.status },
        'push subscription removed: the push service refused it',
      );
      return true;
    }
    const attempt = job.attempt + 1;
    const dueAt = Date.now() + (result.retryAfterMs ?? backoffMs(attempt));
    if (attempt >= MAX_ATTEMPTS || dueAt >= job.expiresAt) {
      metrics.failed.inc({ reason: attempt >= MAX_ATTEMPTS ? 'gave_up' : 'expired' });
      return true;
    }
    metrics.retried.inc({ reason: result.reason });
    await this.deps.queue.retry(claimed, { ...job, attempt }, dueAt);
    this.putBack(dueAt);
    return false;
  }

  /** A job this dispatcher put back comes due at `dueAt`: the loop claims it then, asleep or not. */
  private putBack(dueAt: number): void {
    this.putBackDueAt = Math.min(this.putBackDueAt, dueAt);
    if (this.wakeIdle) this.dueTimer.dueBy(dueAt);
  }

  /** Subscribes to the queue's announcements; while it fails, the safety poll finds the jobs. */
  private async listen(): Promise<void> {
    try {
      this.unsubscribe = await this.deps.queue.onQueued(() => this.wake('work'));
    } catch (error) {
      this.report(error, 'push queue announcements not subscribed; retrying');
    }
  }

  /**
   * When to look at the queue again unless woken: when a job this dispatcher put back comes
   * due; the queue's earliest due time (other pods' retries, leases' ends), read at most every
   * STATS_INTERVAL_MS (with the queue's metrics) and otherwise read again when that interval is
   * over (jobs may have come due meanwhile); after SAFETY_POLL_MS at the latest.
   */
  private async nextDueAt(): Promise<number> {
    const now = this.clock.now();
    const latest = Math.min(now + SAFETY_POLL_MS, this.putBackDueAt);
    if (now - this.statsAt < STATS_INTERVAL_MS)
      return Math.min(this.statsAt + STATS_INTERVAL_MS, latest);
    this.statsAt = now;
    try {
      const { depth, earliestDueAt } = await this.deps.queue.stats();
      this.deps.metrics.queueDepth.set(depth);
      this.deps.metrics.queueAge.set(
        earliestDueAt === null ? 0 : Math.max(0, now - earliestDueAt) / 1000,
      );
      return Math.min(earliestDueAt ?? Infinity, latest);
    } catch (error) {
      this.report(error, 'push queue statistics not read');
      return now + STATS_INTERVAL_MS;
    }
  }

  /** Waits for `reason` (room also comes when work does), or until `dueAt` (epoch ms). */
  private idle(reason: 'room' | 'work', dueAt: number): Promise<void> {
    this.waitingFor = reason;
    if (this.stopped) return Promise.resolve();
    // Work announced while the loop was between its claim and this wait: claimed after the
    // gathering window, with whatever else comes in it.
    if (reason === 'work' && this.workAnnounced)
      dueAt = Math.min(dueAt, this.clock.now() + WORK_GATHER_MS);
    return new Promise((resolve) => {
      this.wakeIdle = () => {
        this.dueTimer.cancel();
        this.wakeIdle = undefined;
        resolve();
      };
      this.dueTimer.rearm(dueAt);
    });
  }

  private wake(reason: 'room' | 'work'): void {
    if (reason === 'work') this.workAnnounced = true;
    if (this.waitingFor === 'room') {
      if (BATCH - this.working.size >= CLAIM_AT_LEAST) this.wakeIdle?.();
    } else if (reason === 'work' && this.wakeIdle) {
      this.dueTimer.dueBy(this.clock.now() + WORK_GATHER_MS);
    }
  }

  private report(error: unknown, message: string): void {
    if (error instanceof DependencyUnavailableError) this.deps.outages.report(error);
    else this.deps.logger.error({ err: error }, message);
  }
}

/** 1 s, 2 s, 4 s… up to 5 minutes, with up to a quarter of jitter so that retries of a burst spread out. */
function backoffMs(attempt: number): number {
  const base = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (attempt - 1));
  return Math.round(base * (1 + Math.random() * 0.25));
}
