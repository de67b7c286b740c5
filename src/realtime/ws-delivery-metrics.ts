/**
 * The deliveries' metrics of a /ws endpoint: events written by kind, the fan-out latency, the
 * delivery lag and the resyncs.
 */
import type { DeliveryCounter } from './client-connection.js';
import type { RealtimeMetrics } from './realtime-metrics.js';

export interface DeliveryMetrics {
  readonly counter: DeliveryCounter;
  /** Records the time from an event's publish to its hand-over on this pod. */
  readonly observeFanout: (publishedAt: number) => void;
  /** Records the time from an event's `at` to now, right after its socket writes here. */
  readonly observeDelivered: (frame: string) => void;
}

export function deliveryMetrics(metrics: RealtimeMetrics): DeliveryMetrics {
  const tally = metrics.deliveredSinceRead;
  return {
    counter: {
      delivered: (kind, count) => {
        tally[kind] += count;
      },
      resync: (reason) => metrics.resyncs.inc({ reason }),
    },
    observeFanout: (publishedAt) =>
      metrics.fanoutLatency.observe(Math.max(0, Date.now() - publishedAt) / 1000),
    observeDelivered: (frame) => {
      const at = eventTime(frame);
      if (at !== undefined) metrics.deliveryLag.observe(Math.max(0, Date.now() - at) / 1000);
    },
  };
}

const AT = '"at":"';

/**
 * The `at` of an event frame (epoch ms), read without parsing the JSON: it comes before `data`,
 * so the first `"at":"` is the envelope's own, followed by 24 characters of ISO-8601 UTC.
 */
function eventTime(frame: string): number | undefined {
  const start = frame.indexOf(AT);
  if (start < 0) return undefined;
  const at = Date.parse(frame.slice(start + AT.length, start + AT.length + 24));
  return Number.isNaN(at) ? undefined : at;
}
