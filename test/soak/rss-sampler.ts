/**
 * Samples the resident memory of every process of the cluster (VmRSS in /proc/<pid>/status)
 * through the run, and states each process's growth as a slope: least squares over the samples
 * of its longest-lived incarnation (a killed process starts again from nothing), without that
 * incarnation's first WARM_UP_MS, while heaps and caches are still filling.
 */
import { readFile } from 'node:fs/promises';
import { sleep } from '../support/session-api.js';
import type { Recorder } from './recorder.js';
import type { SoakProcess } from './soak-cluster.js';
import { SoakLoop } from './soak-loop.js';

interface Sample {
  readonly pid: number;
  readonly at: number;
  readonly rssMiB: number;
}

export interface RssFigures {
  /** MiB per minute over the measured stretch. */
  readonly slopeMiBPerMinute: number;
  /** How long the stretch the slope was measured over lasted, in seconds. */
  readonly measuredSeconds: number;
  readonly firstMiB: number;
  readonly lastMiB: number;
  readonly maxMiB: number;
}

const INTERVAL_MS = 2_000;
const WARM_UP_MS = 30_000;

export class RssSampler extends SoakLoop {
  private readonly samples = new Map<string, Sample[]>();

  constructor(
    private readonly processes: readonly SoakProcess[],
    private readonly recorder: Recorder,
  ) {
    super();
    for (const each of processes) this.samples.set(each.name, []);
    this.start(this.run());
  }

  figures(): Record<string, RssFigures> {
    return Object.fromEntries(
      [...this.samples].map(([name, samples]) => [name, figuresOf(longestIncarnation(samples))]),
    );
  }

  private async run(): Promise<void> {
    while (this.running) {
      for (const each of this.processes) {
        const pid = each.service.process.pid;
        const rssMiB = pid === undefined ? undefined : await residentMiB(pid);
        if (pid !== undefined && rssMiB !== undefined)
          this.samples.get(each.name)!.push({ pid, at: this.recorder.now(), rssMiB });
      }
      await sleep(INTERVAL_MS);
    }
  }
}

async function residentMiB(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status);
    return kib ? Number(kib[1]) / 1024 : undefined;
  } catch {
    return undefined; // the process is being restarted
  }
}

function longestIncarnation(samples: readonly Sample[]): Sample[] {
  const byPid = new Map<number, Sample[]>();
  for (const sample of samples) byPid.set(sample.pid, [...(byPid.get(sample.pid) ?? []), sample]);
  const lifetime = (list: Sample[]) => list.at(-1)!.at - list[0]!.at;
  const longest = [...byPid.values()].sort((a, b) => lifetime(b) - lifetime(a))[0] ?? [];
  const start = (longest[0]?.at ?? 0) + WARM_UP_MS;
  return longest.filter((sample) => sample.at >= start);
}

function figuresOf(samples: readonly Sample[]): RssFigures {
  const n = samples.length;
  const meanAt = samples.reduce((sum, s) => sum + s.at, 0) / n;
  const meanRss = samples.reduce((sum, s) => sum + s.rssMiB, 0) / n;
  const covariance = samples.reduce((sum, s) => sum + (s.at - meanAt) * (s.rssMiB - meanRss), 0);
  const variance = samples.reduce((sum, s) => sum + (s.at - meanAt) ** 2, 0);
  const round = (value: number) => Math.round(value * 10) / 10;
  return {
    slopeMiBPerMinute: n < 2 || variance === 0 ? 0 : round((covariance / variance) * 60_000),
    measuredSeconds: n < 2 ? 0 : round((samples.at(-1)!.at - samples[0]!.at) / 1000),
    firstMiB: round(samples[0]?.rssMiB ?? 0),
    lastMiB: round(samples.at(-1)?.rssMiB ?? 0),
    maxMiB: round(Math.max(0, ...samples.map((s) => s.rssMiB))),
  };
}
