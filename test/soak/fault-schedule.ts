/**
 * The faults of a run, drawn from the seed before it starts: after a warm-up, one fault at a
 * time with a pause between (so that each one's recovery can be measured), until shortly
 * before the load stops. The kinds come in rounds, each round every kind once in a seeded
 * order, so that even a short run (CI's 120 s) meets each kind.
 */
import type { SeededRandom } from './seeded-random.js';

export type FaultKind =
  | 'api process killed'
  | 'ws process killed'
  | 'process paused'
  | 'Redis restarted empty'
  | 'Redis frozen'
  | 'process cut off from Redis'
  | 'one Redis Cluster shard restarted empty';

export interface ScheduledFault {
  readonly kind: FaultKind;
  /** When it begins (ms after the load started). */
  readonly at: number;
  /** How long a fault that lasts stays on (pause, freeze, cut); kills are instant. */
  readonly durationMs: number;
  /** Which process (index into the cluster's processes) or shard it hits, where one is hit. */
  readonly target: number;
}

const WARM_UP_MS = 8_000;
/** The last fault ends this long before the load stops, so the drain meets a healed cluster. */
const COOL_DOWN_MS = 8_000;
const DURATION_MS = [1_500, 4_000] as const;
const PAUSE_BETWEEN_MS = [3_000, 7_000] as const;

export function faultKinds(redisCluster: boolean): FaultKind[] {
  return [
    'api process killed',
    'ws process killed',
    'process paused',
    'Redis restarted empty',
    'Redis frozen',
    // A Redis Cluster hands clients the nodes' own addresses, so one process's link cannot be
    // staged by a proxy; a shard lost alone is the fault only a cluster has.
    redisCluster ? 'one Redis Cluster shard restarted empty' : 'process cut off from Redis',
  ];
}

export function drawFaultSchedule(
  random: SeededRandom,
  loadMs: number,
  kinds: readonly FaultKind[],
  processCount: number,
): ScheduledFault[] {
  const schedule: ScheduledFault[] = [];
  let round: FaultKind[] = [];
  for (let at = WARM_UP_MS; ;) {
    if (round.length === 0) round = shuffled(random, kinds);
    const kind = round.pop()!;
    const durationMs = random.between(...DURATION_MS);
    if (at + durationMs > loadMs - COOL_DOWN_MS) return schedule;
    schedule.push({ kind, at, durationMs, target: random.between(0, processCount - 1) });
    at += durationMs + random.between(...PAUSE_BETWEEN_MS);
  }
}

function shuffled<T>(random: SeededRandom, items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i -= 1) {
    const j = random.between(0, i);
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}
