/**
 * The Prometheus metrics of account moves and deletions: walks finished, the time each owner
 * took, and walks left unfinished (a number that stays above 0 means a walk keeps failing).
 */
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';

export interface AccountWalkMetrics {
  readonly walks: Counter<'kind'>;
  readonly ownerSeconds: Histogram<'kind' | 'owner'>;
  readonly unfinished: Gauge;
}

export function createAccountWalkMetrics(registry: Registry): AccountWalkMetrics {
  const registers = [registry];
  return {
    walks: new Counter({
      name: 'account_walks_finished_total',
      help: 'Account moves (kind=move, social recovery) and deletions (kind=delete) finished.',
      labelNames: ['kind'],
      registers,
    }),
    ownerSeconds: new Histogram({
      name: 'account_walk_owner_seconds',
      help: 'Time one owner of address-keyed records took to move or delete an account.',
      labelNames: ['kind', 'owner'],
      buckets: [0.005, 0.025, 0.1, 0.5, 2.5, 10, 60],
      registers,
    }),
    unfinished: new Gauge({
      name: 'account_walks_unfinished',
      help: 'Account moves and deletions found unfinished at the last check of the resumer.',
      registers,
    }),
  };
}
