/** The deliveries' metrics of a /ws endpoint: events written by kind, and the fan-out latency. */
import type { DeliveryCounter } from './client-connection.js';
import type { RealtimeMetrics } from './realtime-metrics.js';

export interface DeliveryMetrics {
  readonly counter: DeliveryCounter;
  /** Records the time from an event's publish to its hand-over on this pod. */
  readonly observeFanout: (publishedAt: number) => void;
}

export function deliveryMetrics(metrics: RealtimeMetrics): DeliveryMetrics {
  // One child counter per kind, looked up once: a delivery then costs no label hashing.
  const deliveredOf = {
    durable: metrics.eventsDelivered.labels('durable'),
    ephemeral: metrics.eventsDelivered.labels('ephemeral'),
    replayed: metrics.eventsDelivered.labels('replayed'),
  };
  return {
    counter: { delivered: (kind, count) => deliveredOf[kind].inc(count) },
    observeFanout: (publishedAt) =>
      metrics.fanoutLatency.observe(Math.max(0, Date.now() - publishedAt) / 1000),
  };
}
