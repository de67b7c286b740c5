/**
 * `npm run soak`: the whole cluster under a mixed workload of real clients and a seeded random
 * fault schedule for SOAK_SECONDS, then the checker (checker.ts) and the report (printed, and
 * written as JSON). Not part of `npm test` (its files end in .soak.ts): CI runs it as a step of
 * its own with a fixed seed (.ci/run), and docs/reliability.md holds a long run's figures.
 */
import { check } from './checker.js';
import { FaultInjector } from './fault-injector.js';
import { drawFaultSchedule, faultKinds } from './fault-schedule.js';
import { Recorder } from './recorder.js';
import { RssSampler } from './rss-sampler.js';
import { SeededRandom } from './seeded-random.js';
import { startSoakCluster } from './soak-cluster.js';
import type { SoakCluster } from './soak-cluster.js';
import { buildReport, publishReport } from './soak-report.js';
import type { SoakReport } from './soak-report.js';
import { soakSettings } from './soak-settings.js';
import { startWorkload } from './workload.js';
import { sleep } from '../support/session-api.js';

const settings = soakSettings();
/**
 * Start-up (with the api process's restart that grants the reviewer), the drain, the late
 * deliveries and the read-back, beyond the load itself: on a loaded machine a process start
 * alone has taken a minute.
 */
const OVERHEAD_MS = 7 * 60_000;

let report: SoakReport;
const soakStartedAt = Date.now();

/**
 * One step of the soak, its end printed with the time since the soak began: when a run is cut
 * short by jest's timeout, the last line printed names the step that did not end.
 */
async function phase<T>(name: string, step: () => Promise<T>): Promise<T> {
  const result = await step();
  const seconds = ((Date.now() - soakStartedAt) / 1000).toFixed(1);
  process.stdout.write(`soak: ${name} done at ${seconds} s\n`);
  return result;
}

beforeAll(
  async () => {
    process.stdout.write(
      `soak: seed ${settings.seed}, ${settings.seconds} s (repeat with SOAK_SEED=${settings.seed})\n`,
    );
    const random = new SeededRandom(settings.seed);
    const scheduleRandom = random.fork();
    const cluster = await phase('cluster start', () => startSoakCluster(settings));
    try {
      report = await soak(cluster, random, scheduleRandom);
    } finally {
      await phase('cluster stop', () => cluster.stop());
    }
    process.stdout.write(`${publishReport(report, settings.reportPath)}\n`);
  },
  settings.seconds * 1000 + OVERHEAD_MS,
);

it('loses, duplicates beyond the allowed and revives nothing, and answers no 5xx outside a fault window', () => {
  expect(report.violations).toEqual({});
});

async function soak(
  cluster: SoakCluster,
  random: SeededRandom,
  scheduleRandom: SeededRandom,
): Promise<SoakReport> {
  const recorder = new Recorder();
  const loadMs = settings.seconds * 1000;
  const workload = await phase('workload start', () =>
    startWorkload(cluster, recorder, random, loadMs),
  );
  const loadStartedAt = recorder.now();
  const schedule = drawFaultSchedule(
    scheduleRandom,
    loadMs,
    faultKinds(settings.redisCluster),
    cluster.processes.length,
  ).map((fault) => ({ ...fault, at: fault.at + loadStartedAt }));
  const faults = new FaultInjector(cluster, recorder, schedule);
  const rss = new RssSampler(cluster.processes, recorder);
  await phase('load', () => sleep(loadMs));
  await phase('faults stop', () => faults.stop());
  await phase('workload stop', () => workload.stop());
  await rss.stop();
  const findings = await phase('check', () =>
    check(cluster, recorder, workload, faults.done, rss.figures()),
  );
  await phase('devices disconnect', () => workload.disconnectDevices());
  return buildReport({
    settings,
    shape: `${cluster.apis.length} api + ${cluster.wsPods.length} ws processes, ${settings.mongodbUrl ? 'MongoDB' : 'embedded store'}, ${settings.redisCluster ? 'Redis Cluster (3 masters)' : 'one Redis'}; device drops ${workload.deviceChurn.drops}, slow reads ${workload.deviceChurn.slowReads}, accounts suspended ${workload.suspensions.madeAt.length} (at ${workload.suspensions.madeAt.map((at) => `${(at / 1000).toFixed(1)} s`).join(', ')})`,
    operations: recorder.operations,
    acknowledged: workload.conversations.flatMap((conversation) => conversation.acknowledged),
    faults: faults.done,
    findings,
    rss: rss.figures(),
  });
}
