/**
 * Carries out the fault schedule on the cluster, one fault at a time, and writes down each
 * fault's window: when it began, when its cause ended (the kill itself; the SIGCONT, thaw,
 * reconnection or restart of Redis for the lasting ones) and when the cluster was whole again
 * (a killed process ready on its DATA_DIR). Killed processes are restarted at once, as an
 * orchestrator does. Faults of Redis never touch the shared Redis at 127.0.0.1:6379: only the
 * soak's own.
 */
import { sleep } from '../support/session-api.js';
import type { FaultKind, ScheduledFault } from './fault-schedule.js';
import type { Recorder } from './recorder.js';
import type { SoakCluster, SoakProcess } from './soak-cluster.js';
import { SoakLoop } from './soak-loop.js';

export interface FaultRecord {
  readonly kind: FaultKind;
  /** The process or shard hit, if one was. */
  readonly target: string;
  readonly startedAt: number;
  /** When the cause ended: recovery is measured from here. */
  readonly causeEndedAt: number;
  /** When the fault was healed on the harness's side (a killed process ready again). */
  readonly healedAt: number;
}

export class FaultInjector extends SoakLoop {
  readonly done: FaultRecord[] = [];

  constructor(
    private readonly cluster: SoakCluster,
    private readonly recorder: Recorder,
    schedule: readonly ScheduledFault[],
  ) {
    super();
    this.start(this.run(schedule));
  }

  private async run(schedule: readonly ScheduledFault[]): Promise<void> {
    for (const fault of schedule) {
      while (this.running && this.recorder.now() < fault.at) await sleep(50);
      if (!this.running) return;
      this.done.push(await this.inject(fault));
    }
  }

  private async inject(fault: ScheduledFault): Promise<FaultRecord> {
    const { cluster } = this;
    const startedAt = this.recorder.now();
    const record = (target: string, causeEndedAt: number): FaultRecord => ({
      kind: fault.kind,
      target,
      startedAt,
      causeEndedAt,
      healedAt: this.recorder.now(),
    });
    const lasting = async (target: string, begin: () => unknown, end: () => unknown) => {
      await begin();
      await sleep(fault.durationMs);
      await end();
      return record(target, this.recorder.now());
    };
    switch (fault.kind) {
      case 'api process killed':
        return this.killAndRestart(pick(cluster.apis, fault.target), record);
      case 'ws process killed':
        return this.killAndRestart(pick(cluster.wsPods, fault.target), record);
      case 'process paused': {
        const victim = pick(cluster.processes, fault.target);
        return lasting(
          victim.name,
          () => victim.service.process.kill('SIGSTOP'),
          () => victim.service.process.kill('SIGCONT'),
        );
      }
      case 'process cut off from Redis': {
        const victim = pick(cluster.processes, fault.target);
        return lasting(
          victim.name,
          () => victim.redisLink!.cut(),
          () => victim.redisLink!.restore(),
        );
      }
      case 'Redis frozen':
        return lasting(
          'redis',
          () => cluster.redis.freeze(),
          () => cluster.redis.thaw(),
        );
      case 'Redis restarted empty':
        await cluster.redis.restartEmpty();
        return record('redis', this.recorder.now());
      case 'one Redis Cluster shard restarted empty': {
        const shard = fault.target % cluster.redisCluster!.ports.length;
        await cluster.redisCluster!.restartNodeEmpty(shard);
        return record(`shard ${shard + 1}`, this.recorder.now());
      }
    }
  }

  private async killAndRestart(
    victim: SoakProcess,
    record: (target: string, causeEndedAt: number) => FaultRecord,
  ): Promise<FaultRecord> {
    await victim.service.kill();
    const killedAt = this.recorder.now();
    await victim.service.restart();
    return record(victim.name, killedAt);
  }
}

const pick = <T>(items: readonly T[], index: number): T => items[index % items.length]!;
