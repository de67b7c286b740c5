/**
 * Readiness reflects the dependencies a process needs to serve: each check pings one of them
 * with a deadline. A draining process reports not ready, so load balancers stop sending to it
 * before it stops listening.
 */
export type DependencyCheck = () => Promise<void>;

export interface ReadinessReport {
  readonly ready: boolean;
  readonly checks: Record<string, { status: 'up' | 'down'; latency_ms: number; error?: string }>;
}

const CHECK_TIMEOUT_MS = 2_000;

export class Readiness {
  private draining = false;

  constructor(private readonly checks: Readonly<Record<string, DependencyCheck>>) {}

  startDraining(): void {
    this.draining = true;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  async report(): Promise<ReadinessReport> {
    const entries = await Promise.all(
      Object.entries(this.checks).map(
        async ([name, check]) => [name, await runCheck(check)] as const,
      ),
    );
    const checks = Object.fromEntries(entries);
    return {
      ready: !this.draining && entries.every(([, result]) => result.status === 'up'),
      checks,
    };
  }
}

async function runCheck(check: DependencyCheck) {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)),
          CHECK_TIMEOUT_MS,
        );
      }),
    ]);
    return { status: 'up' as const, latency_ms: Math.round(performance.now() - started) };
  } catch (error) {
    return {
      status: 'down' as const,
      latency_ms: Math.round(performance.now() - started),
      error: (error as Error).message,
    };
  } finally {
    clearTimeout(timer);
  }
}
