/**
 * The location area's Prometheus metrics: how sessions end (an operator sees the expiry sweeper
 * at work) and how many updates are relayed or held back by the 5-second pace.
 */
import { Counter } from 'prom-client';
import type { Registry } from 'prom-client';

export type SessionEnd = 'stopped' | 'replaced' | 'expired' | 'blocked' | 'account';

export interface LocationMetrics {
  readonly sessionsEnded: Counter<'reason'>;
  readonly updates: Counter<'outcome'>;
}

export function createLocationMetrics(registry: Registry): LocationMetrics {
  const registers = [registry];
  return {
    sessionsEnded: new Counter({
      name: 'location_sessions_ended_total',
      help: 'Location-sharing sessions ended, by reason: stopped (by the owner), replaced (a new session to the same target), expired (by the sweeper or at an update), blocked, account (moved or deleted).',
      labelNames: ['reason'],
      registers,
    }),
    updates: new Counter({
      name: 'location_updates_total',
      help: 'Accepted location updates: relayed to the audience, or throttled (within 5 s of the last relayed one).',
      labelNames: ['outcome'],
      registers,
    }),
  };
}
