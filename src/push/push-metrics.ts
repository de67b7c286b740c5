/**
 * The push area's Prometheus metrics: what the delivery queue sends, retries and gives up, the
 * subscriptions it removes, and how full and how late the queue is (updated by each api pod's
 * dispatcher as it polls; every pod reads the one shared queue).
 */
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';

export type RemovalReason = 'gone' | 'rejected' | 'session_ended';
export type FailureReason = 'gave_up' | 'expired';

export interface PushMetrics {
  readonly sent: Counter<'kind'>;
  readonly retried: Counter<'reason'>;
  readonly failed: Counter<'reason'>;
  readonly subscriptionsRemoved: Counter<'reason'>;
  readonly skipped: Counter<'reason'>;
  readonly queueDepth: Gauge;
  readonly queueAge: Gauge;
  /** How late each job was claimed: from when it was due to when a pod took it. */
  readonly jobWait: Histogram;
}

export function createPushMetrics(registry: Registry): PushMetrics {
  const registers = [registry];
  return {
    sent: new Counter({
      name: 'push_sent_total',
      help: 'Pushes accepted by a push service, by kind of event.',
      labelNames: ['kind'],
      registers,
    }),
    retried: new Counter({
      name: 'push_retries_total',
      help: 'Pushes put back for another try: server_error (5xx or 408), throttled (429, after Retry-After), network (timeout, refused connection).',
      labelNames: ['reason'],
      registers,
    }),
    failed: new Counter({
      name: 'push_failed_total',
      help: 'Pushes dropped unsent: gave_up (every attempt failed), expired (their TTL passed while retrying).',
      labelNames: ['reason'],
      registers,
    }),
    subscriptionsRemoved: new Counter({
      name: 'push_subscriptions_removed_total',
      help: 'Subscriptions removed by delivery: gone (404/410 from the push service), rejected (another 4xx but 408 and 429), session_ended (their session is over).',
      labelNames: ['reason'],
      registers,
    }),
    skipped: new Counter({
      name: 'push_skipped_total',
      help: 'Devices not pushed to when woken: connected (a live /ws connection), coalesced (pushed within PUSH_COALESCE_WINDOW).',
      labelNames: ['reason'],
      registers,
    }),
    queueDepth: new Gauge({
      name: 'push_queue_depth',
      help: 'Jobs in the push queue: waiting, being sent, or waiting for a retry.',
      registers,
    }),
    queueAge: new Gauge({
      name: 'push_queue_oldest_due_seconds',
      help: 'How long the longest-waiting due job of the push queue has waited (0 when none is due).',
      registers,
    }),
    jobWait: new Histogram({
      name: 'push_job_wait_seconds',
      help: 'How long each push job waited in the queue after it was due, until a pod claimed it.',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers,
    }),
  };
}
