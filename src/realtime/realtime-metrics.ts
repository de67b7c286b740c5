/** The realtime tier's Prometheus metrics (issue: connected sockets, deliveries, fan-out latency, slow consumers). */
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';

export interface RealtimeMetrics {
  readonly connections: Gauge;
  readonly eventsDelivered: Counter<'kind'>;
  /** From the publisher's publish to this pod's hand-over to the sockets. */
  readonly fanoutLatency: Histogram;
  readonly slowConsumersDropped: Counter;
  readonly framesRefused: Counter<'reason'>;
  /** Broadcast-channel topics this pod subscribes to (one per channel a connected user follows). */
  readonly channelTopics: Gauge;
}

const FANOUT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export function createRealtimeMetrics(registry: Registry): RealtimeMetrics {
  const registers = [registry];
  return {
    connections: new Gauge({
      name: 'ws_connections',
      help: 'Open WebSocket connections on this process.',
      registers,
    }),
    eventsDelivered: new Counter({
      name: 'ws_events_delivered_total',
      help: 'Events written to WebSocket connections, by kind (durable, ephemeral, replayed).',
      labelNames: ['kind'],
      registers,
    }),
    fanoutLatency: new Histogram({
      name: 'ws_fanout_latency_seconds',
      help: 'Time from an event being published to this process handing it to its connections.',
      buckets: FANOUT_BUCKETS,
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
