/**
 * The keys area's Prometheus metrics: how key-bundle fetches end, and where their time goes
 * (the store's current record, the DHT read and the signature checks when this node's verified
 * copy is not that record, the one-time prekey take in the store), so an operator sees whether
 * the directory or the store is slow, and how often the directory is read at all.
 */
import { Counter, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';

export type FetchPhase = 'current_record' | 'directory_read' | 'verification' | 'prekey_take';
export type FetchOutcome = 'served' | 'not_found' | 'unavailable';

export interface KeysMetrics {
  readonly fetchPhase: Histogram<'phase'>;
  readonly fetches: Counter<'outcome'>;
}

const PHASE_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
];

export function createKeysMetrics(registry: Registry): KeysMetrics {
  const registers = [registry];
  return {
    fetchPhase: new Histogram({
      name: 'key_bundle_fetch_phase_seconds',
      help: 'Time of each phase of a key-bundle fetch: current_record (the store), directory_read (the DHT) and verification (owner signatures) when the verified copy is not current, prekey_take (the store).',
      labelNames: ['phase'],
      buckets: PHASE_BUCKETS,
      registers,
    }),
    fetches: new Counter({
      name: 'key_bundle_fetches_total',
      help: 'Key-bundle fetches by outcome: served, not_found (no bundle published, or the account was deleted or moved away), unavailable (the directory had no valid record while the store has the bundle).',
      labelNames: ['outcome'],
      registers,
    }),
  };
}

/** Runs one phase of a fetch under the phase histogram's timer. */
export type PhaseTimer = <T>(phase: FetchPhase, run: () => Promise<T>) => Promise<T>;

export function phaseTimer(metrics: KeysMetrics): PhaseTimer {
  return async (phase, run) => {
    const end = metrics.fetchPhase.startTimer({ phase });
    try {
      return await run();
    } finally {
      end();
    }
  };
}
