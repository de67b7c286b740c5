/** The realtime tier's Prometheus metrics (issue: connected sockets, deliveries, fan-out latency, slow consumers). */
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';

/** The kinds of ws_events_delivered_total. */
export type DeliveryKind = 'durable' | 'ephemeral' | 'replayed';

export interface RealtimeMetrics {
  readonly connections: Gauge;
  readonly eventsDelivered: Counter<'kind'>;
  /**
   * Events written since ws_events_delivered_total was last read, by kind, added to it when it
   * is read: a socket write then costs a plain addition. The counter's own `inc` hashes its
   * labels on every call, about 1 % of the service's CPU in the fan-out bench (one per socket).
   */
  readonly deliveredSinceRead: Record<DeliveryKind, number>;
  /** From the publisher's publish to this pod's hand-over to the sockets. */
  readonly fanoutLatency: Histogram;
  /** From the sending request's event (its `at`) to this pod's socket writes of it. */
  readonly deliveryLag: Histogram;
  /** Connections told to re-read over REST, by reason (gap, unavailable, channel_gap). */
  readonly resyncs: Counter<'reason'>;
  readonly slowConsumersDropped: Counter;
  readonly framesRefused: Counter<'reason'>;
  /** Broadcast-channel topics this pod subscribes to (one per channel a connected user follows). */
  readonly channelTopics: Gauge;
}

const DELIVERY_KINDS: readonly DeliveryKind[] = ['durable', 'ephemeral', 'replayed'];

/** Delivery lag spans a healthy few milliseconds to seconds-long backlogs. */
const LAG_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const FANOUT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export function createRealtimeMetrics(registry: Registry): RealtimeMetrics {
  const registers = [registry];
  const deliveredSinceRead: Record<DeliveryKind, number> = {
    durable: 0,
    ephemeral: 0,
    replayed: 0,
  };
  const eventsDelivered = new Counter({
    name: 'ws_events_delivered_total',
    help: 'Events written to WebSocket connections, by kind (durable, ephemeral, replayed).',
    labelNames: ['kind'],
    registers,
    collect() {
      for (const kind of DELIVERY_KINDS) {
        this.labels(kind).inc(deliveredSinceRead[kind]);
        deliveredSinceRead[kind] = 0;
      }
    },
  });
  return {
    eventsDelivered,
    deliveredSinceRead,
    connections: new Gauge({
      name: 'ws_connections',
      help: 'Open WebSocket connections on this process.',
      registers,
    }),
    fanoutLatency: new Histogram({
      name: 'ws_fanout_latency_seconds',
      help: 'Time from an event being published to this process handing it to its connections.',
      buckets: FANOUT_BUCKETS,
      registers,
    }),
    deliveryLag: new Histogram({
      name: 'ws_delivery_lag_seconds',
      help: "Time from an event's creation by the sending request (its `at`, once the change is durable) to this process's socket writes of it; live events only.",
      buckets: LAG_BUCKETS,
      registers,
    }),
    resyncs: new Counter({
      name: 'ws_resyncs_total',
      help: 'resync_required frames sent, by reason: gap (replay log trimmed or the stream restarted), unavailable (Redis away during a catch-up), channel_gap (channel posts no longer kept).',
      labelNames: ['reason'],
      registers,
    }),
    slowConsumersDropped: new Counter({
      name: 'ws_slow_consumers_dropped_total',
      help: 'Connections closed because their unsent data passed WS_MAX_BUFFERED_BYTES.',
      registers,
    }),
    framesRefused: new Counter({
      name: 'ws_frames_refused_total',
      help: 'Client frames refused, by reason (invalid, rate_limited, forbidden, unknown_type).',
      labelNames: ['reason'],
      registers,
    }),
    channelTopics: new Gauge({
      name: 'ws_channel_topics',
      help: 'Channel topics this process subscribes to: channels that a user connected here follows.',
      registers,
    }),
  };
}
