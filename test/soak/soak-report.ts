/**
 * The report of a run: what ran (operations by kind and outcome, faults by kind), how the
 * cluster recovered from each fault (from the end of its cause to the first acknowledged send
 * that started after it: p50 and max per kind), the checker's findings and the RSS figures.
 * Printed as text and written as JSON (SOAK_REPORT).
 */
import { writeFileSync } from 'node:fs';
import type { Findings } from './checker.js';
import {
  MAX_RSS_SLOPE_MIB_PER_MINUTE,
  MIN_RSS_MEASUREMENT_SECONDS,
  violations,
  WINDOW_GRACE_MS,
} from './checker.js';
import type { Acknowledged } from './conversations.js';
import type { FaultRecord } from './fault-injector.js';
import type { Operation } from './recorder.js';
import type { RssFigures } from './rss-sampler.js';
import type { SoakSettings } from './soak-settings.js';

export interface SoakReport {
  readonly seed: number;
  readonly loadSeconds: number;
  readonly shape: string;
  readonly acknowledgedSends: number;
  readonly operations: Record<string, Record<string, number>>;
  readonly faults: Record<string, number>;
  readonly recoveryMs: Record<string, { p50: number; max: number; count: number }>;
  readonly faultLog: (FaultRecord & { recoveryMs: number | undefined })[];
  readonly lost: number;
  readonly duplicatedBeyondAllowed: number;
  /** Messages a device got again on a new stream after Redis lost its data (allowed). */
  readonly redeliveredOnNewStream: number;
  readonly revived: number;
  readonly serverErrorsOutsideWindows: number;
  readonly rss: {
    boundMiBPerMinute: number;
    judgedFromSeconds: number;
    processes: Record<string, RssFigures>;
  };
  readonly windowGraceMs: number;
  readonly violations: Partial<Findings>;
  readonly passed: boolean;
}

export function buildReport(input: {
  settings: SoakSettings;
  shape: string;
  operations: readonly Operation[];
  acknowledged: readonly Acknowledged[];
  faults: readonly FaultRecord[];
  findings: Findings;
  rss: Record<string, RssFigures>;
}): SoakReport {
  const { findings } = input;
  const faultLog = input.faults.map((fault) => ({
    ...fault,
    recoveryMs: recoveryOf(fault, input.acknowledged),
  }));
  const found = violations(findings);
  return {
    seed: input.settings.seed,
    loadSeconds: input.settings.seconds,
    shape: input.shape,
    acknowledgedSends: input.acknowledged.length,
    operations: countOperations(input.operations),
    faults: countBy(input.faults.map((fault) => fault.kind)),
    recoveryMs: recoveryByKind(faultLog),
    faultLog,
    lost: findings.lost.length,
    duplicatedBeyondAllowed:
      findings.storedTwice.length +
      findings.sequenceGivenTwice.length +
      findings.deliveredTwice.length,
    redeliveredOnNewStream: findings.redeliveredOnNewStream,
    revived: findings.revived.length + findings.prekeysHandedOutTwice.length,
    serverErrorsOutsideWindows: findings.serverErrorsOutsideWindows.length,
    rss: {
      boundMiBPerMinute: MAX_RSS_SLOPE_MIB_PER_MINUTE,
      judgedFromSeconds: MIN_RSS_MEASUREMENT_SECONDS,
      processes: input.rss,
    },
    windowGraceMs: WINDOW_GRACE_MS,
    violations: found,
    passed: Object.keys(found).length === 0,
  };
}

export function publishReport(report: SoakReport, path: string): string {
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
  const lines = [
    `soak: seed ${report.seed}, ${report.loadSeconds} s of load on ${report.shape}: ${report.passed ? 'PASSED' : 'FAILED'}`,
    `  acknowledged sends ${report.acknowledgedSends}; lost ${report.lost}; duplicated beyond the allowed ${report.duplicatedBeyondAllowed} (again on a new stream after Redis lost its data: ${report.redeliveredOnNewStream}); revived ${report.revived}; 5xx outside fault windows ${report.serverErrorsOutsideWindows}`,
    `  operations: ${Object.entries(report.operations)
      .map(([kind, outcomes]) => `${kind} ${JSON.stringify(outcomes)}`)
      .join('; ')}`,
    `  faults: ${JSON.stringify(report.faults)}`,
    `  recovery (ms, first acknowledged send after the cause ended): ${Object.entries(
      report.recoveryMs,
    )
      .map(([kind, r]) => `${kind} p50 ${r.p50} max ${r.max} (n=${r.count})`)
      .join('; ')}`,
    `  RSS slope (MiB/min, bound ${report.rss.boundMiBPerMinute}, judged over at least ${report.rss.judgedFromSeconds} s): ${Object.entries(
      report.rss.processes,
    )
      .map(
        ([name, r]) =>
          `${name} ${r.slopeMiBPerMinute} over ${r.measuredSeconds} s (${r.firstMiB}->${r.lastMiB} MiB)`,
      )
      .join('; ')}`,
    ...(report.passed ? [] : [`  VIOLATIONS: ${JSON.stringify(report.violations, null, 2)}`]),
    `  report: ${path}`,
  ];
  return lines.join('\n');
}

function recoveryOf(fault: FaultRecord, acknowledged: readonly Acknowledged[]): number | undefined {
  const after = acknowledged.filter((ack) => ack.sentAt >= fault.causeEndedAt);
  if (after.length === 0) return undefined;
  return Math.min(...after.map((ack) => ack.acknowledgedAt)) - fault.causeEndedAt;
}

function recoveryByKind(faults: readonly { kind: string; recoveryMs: number | undefined }[]) {
  const byKind = new Map<string, number[]>();
  for (const fault of faults)
    if (fault.recoveryMs !== undefined)
      byKind.set(fault.kind, [...(byKind.get(fault.kind) ?? []), fault.recoveryMs]);
  return Object.fromEntries(
    [...byKind].map(([kind, times]) => {
      const sorted = [...times].sort((a, b) => a - b);
      return [
        kind,
        {
          p50: sorted[Math.floor((sorted.length - 1) / 2)]!,
          max: sorted.at(-1)!,
          count: sorted.length,
        },
      ];
    }),
  );
}

function countOperations(operations: readonly Operation[]): Record<string, Record<string, number>> {
  const counts: Record<string, Record<string, number>> = {};
  for (const { kind, outcome } of operations) {
    const outcomes = (counts[kind] ??= {});
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
  }
  return counts;
}

function countBy(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
