import type { StoreLogger } from '../store-logger.js';

/**
 * Runs `task` every `intervalMs`, never two runs at once, without keeping the process
 * alive; `stop` waits for a run in progress.
 */
export class PeriodicTask {
  private readonly timer: NodeJS.Timeout;
  private running: Promise<void> | undefined;

  constructor(task: () => Promise<void>, intervalMs: number, logger: StoreLogger, name: string) {
    this.timer = setInterval(() => {
      this.running ??= task()
        .catch((err: unknown) => logger.error({ err }, `${name} failed`))
        .finally(() => (this.running = undefined));
    }, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
