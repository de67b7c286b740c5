/**
 * Account suspensions during the run, made as operators make them: a user reports an account,
 * the operator (holding `admin:review_reports`, granted before the cluster started: see
 * soak-cluster.ts) finds the report among the open ones, suspends the account naming the report,
 * and resolves the report as actioned. Each suspension the service confirmed becomes a security
 * hold (security-holds.ts), checked after every fault of the run.
 *
 * The suspensions fall in the first half of the load, so that most faults (api kill -9, Redis
 * restarted empty, a ws pod cut off from Redis) come after some of them. A step whose answer
 * was lost is retried: reporting again answers 409 (the open report exists, the operator still
 * finds it), suspending again only sets the end time again, resolving again answers 409.
 */
import { sleep } from '../support/session-api.js';
import type { SignedIn } from '../support/wallet.js';
import type { ApiEndpoint } from '../faults/support/realtime-device.js';
import { retryable } from './conversations.js';
import type { Recorder } from './recorder.js';
import { suspension } from './security-holds.js';
import type { SecurityHold } from './security-holds.js';

/** How long a suspension lasts: well beyond any run. */
const SUSPENSION_SECONDS = 7 * 24 * 3600;
const RETRY_MS = 250;
/** How long a step is retried after the load stopped. */
const DRAIN_MS = 30_000;

export interface SuspensionCase {
  readonly reporter: SignedIn;
  /** The account to suspend, signed in: its session must end with the suspension. */
  readonly target: SignedIn;
}

export class Suspensions {
  /** When each suspension the service confirmed was made (ms since the soak started). */
  readonly madeAt: number[] = [];
  private running = true;
  private stoppedAt = Infinity;
  private readonly loop: Promise<void>;

  /** `cases[i]` is suspended at (i + 1) / (cases + 1) of the first half of `loadMs`. */
  constructor(
    private readonly api: ApiEndpoint,
    private readonly recorder: Recorder,
    private readonly reviewer: SignedIn,
    cases: readonly SuspensionCase[],
    private readonly holds: SecurityHold[],
    loadMs: number,
  ) {
    const startedAt = recorder.now();
    this.loop = this.run(
      cases.map((each, i) => ({
        ...each,
        at: startedAt + ((i + 1) / (cases.length + 1)) * (loadMs / 2),
      })),
    );
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stoppedAt = Date.now();
    await this.loop;
  }

  private async run(cases: readonly (SuspensionCase & { at: number })[]): Promise<void> {
    for (const each of cases) {
      while (this.running && this.recorder.now() < each.at) await sleep(100);
      if (!this.running) return;
      await this.suspend(each);
    }
  }

  private async suspend({ reporter, target }: SuspensionCase): Promise<void> {
    const address = target.user.address;
    const reported = await this.step('report account', reporter, {
      path: '/api/v1/moderation/reports/accounts',
      body: { address, reason: 'spam' },
      done: [200, 409],
    });
    const reportId = reported && (await this.openReportAbout(address));
    if (reportId === undefined) return;
    const suspended = await this.step('suspend account', this.reviewer, {
      path: `/api/v1/admin/accounts/${address}/moderation`,
      body: { action: 'suspend', duration_seconds: SUSPENSION_SECONDS, report_id: reportId },
      done: [200],
    });
    if (!suspended) return;
    this.madeAt.push(this.recorder.now());
    this.holds.push(suspension(target, this.recorder.now()));
    await this.step('resolve report', this.reviewer, {
      path: `/api/v1/admin/reports/${reportId}/resolve`,
      body: { resolution: 'actioned', note: 'soak' },
      done: [200, 409],
    });
  }

  /** The operator's review: the id of the open report about `address`. */
  private async openReportAbout(address: string): Promise<string | undefined> {
    while (this.draining()) {
      const answer = await this.recorder.call('list reports', this.api.baseUrl, {
        path: '/api/v1/admin/reports?status=open&page_size=200',
        session: this.reviewer,
      });
      if (answer.outcome === 200) {
        const reports = answer.body.reports as { id: string; reported_address: string }[];
        const found = reports.find((report) => report.reported_address === address.toLowerCase());
        if (found) return found.id;
      } else if (!retryable(answer.outcome)) return undefined;
      await sleep(RETRY_MS);
    }
    return undefined;
  }

  /** One request retried until it is answered with one of `done` (true) or refused for good. */
  private async step(
    kind: string,
    session: SignedIn,
    request: { path: string; body: unknown; done: readonly number[] },
  ): Promise<boolean> {
    while (this.draining()) {
      const answer = await this.recorder.call(kind, this.api.baseUrl, { ...request, session });
      if (request.done.includes(answer.outcome as number)) return true;
      if (!retryable(answer.outcome)) return false;
      await sleep(RETRY_MS);
    }
    return false;
  }

  private draining(): boolean {
    return this.running || Date.now() < this.stoppedAt + DRAIN_MS;
  }
}
