/**
 * The one way a request recovers the signer of an EIP-191 signature (wallet sign-in and
 * registration, X-Signature signed requests, recovery guardian decisions): eip191.ts's
 * recoverPersonalSignAddress, run on a pool of worker threads, so that the curve arithmetic,
 * the largest single cost of a sign-in, uses the pod's other cores instead of the event loop.
 *
 * - SIGNATURE_WORKERS threads (default: the available parallelism); 0 recovers on the calling
 *   thread, as a one-core pod is best served.
 * - Bounded: a worker holds at most MAX_JOBS_PER_WORKER jobs. Past that a job runs on the
 *   calling thread, which bounds what is queued and slows the intake of new requests
 *   (backpressure) rather than refusing a valid sign-in.
 * - The answer is always the same function's, so callers see exactly the results and error
 *   codes of the inline path. A worker that dies hands its jobs back to the calling thread and
 *   is replaced.
 * - stop() waits for every job handed out, then ends the threads: graceful shutdown stops it
 *   after the servers have drained, so a sign-in in flight finishes.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { recoverPersonalSignAddress } from './eip191.js';

export type RecoveredSigner = ReturnType<typeof recoverPersonalSignAddress>;

/** What a worker is asked (signer-recovery-worker.ts). */
export interface RecoveryJob {
  readonly id: number;
  readonly message: string;
  readonly signature: string;
}

/** What a worker answers. */
export interface RecoveryAnswer {
  readonly id: number;
  readonly result: RecoveredSigner;
}

/** Enough to keep a worker busy between its answers, small enough to keep the queue short. */
const MAX_JOBS_PER_WORKER = 64;

/** The compiled worker beside this module (dist/ or .test-build/); running from TypeScript sources it does not exist. */
const WORKER_SCRIPT = new URL('./signer-recovery-worker.js', import.meta.url);

interface Job extends RecoveryJob {
  readonly resolve: (result: RecoveredSigner) => void;
}

/** One worker thread and the jobs it has not answered yet. */
class RecoveryThread {
  readonly jobs = new Map<number, Job>();
  private readonly idleWaiters: (() => void)[] = [];

  constructor(readonly worker: Worker) {}

  answer({ id, result }: RecoveryAnswer): void {
    const job = this.jobs.get(id);
    if (!job) return;
    this.jobs.delete(id);
    job.resolve(result);
    if (this.jobs.size === 0) for (const wake of this.idleWaiters.splice(0)) wake();
  }

  whenIdle(): Promise<void> {
    return this.jobs.size === 0
      ? Promise.resolve()
      : new Promise((resolve) => this.idleWaiters.push(resolve));
  }
}

export interface SignerRecoveryOptions {
  /** SIGNATURE_WORKERS; 0: recover on the calling thread. */
  readonly workers: number;
  readonly logger: {
    info(fields: object, message: string): void;
    warn(fields: object, message: string): void;
    error(fields: object, message: string): void;
  };
}

export class SignerRecovery {
  private readonly threads: RecoveryThread[] = [];
  private nextJobId = 0;
  private stopping = false;

  constructor(private readonly options: SignerRecoveryOptions) {}

  /** Starts the worker threads; refuses to start when they cannot run rather than silently recovering inline. */
  start(): void {
    if (this.options.workers > 0 && !existsSync(fileURLToPath(WORKER_SCRIPT))) {
      throw new Error(
        `SIGNATURE_WORKERS=${this.options.workers} needs the compiled worker ${fileURLToPath(WORKER_SCRIPT)}: run the built service, or set SIGNATURE_WORKERS=0`,
      );
    }
    for (let i = 0; i < this.options.workers; i++) this.spawn();
    this.options.logger.info({ workers: this.options.workers }, 'signature workers started');
  }

  /** The signer of `message`, with the canonical signature, or why there is none (eip191.ts). */
  recover(message: string, signature: string): Promise<RecoveredSigner> {
    const thread = this.leastBusy();
    if (!thread || thread.jobs.size >= MAX_JOBS_PER_WORKER)
      return Promise.resolve(recoverPersonalSignAddress(message, signature));
    const id = this.nextJobId++;
    return new Promise((resolve) => {
      thread.jobs.set(id, { id, message, signature, resolve });
      thread.worker.postMessage({ id, message, signature } satisfies RecoveryJob);
    });
  }

  /** Lets every job handed out finish, then ends the threads; later calls recover on the calling thread. */
  async stop(): Promise<void> {
    this.stopping = true;
    const threads = this.threads.splice(0);
    await Promise.all(
      threads.map(async (thread) => {
        await thread.whenIdle();
        await thread.worker.terminate();
      }),
    );
  }

  private leastBusy(): RecoveryThread | undefined {
    let best: RecoveryThread | undefined;
    for (const thread of this.threads)
      if (!best || thread.jobs.size < best.jobs.size) best = thread;
    return best;
  }

  private spawn(): void {
    const thread = new RecoveryThread(new Worker(WORKER_SCRIPT));
    let online = false;
    thread.worker.on('online', () => (online = true));
    thread.worker.on('message', (answer: RecoveryAnswer) => thread.answer(answer));
    thread.worker.on('error', (error) =>
      this.options.logger.error({ err: error }, 'signature worker failed'),
    );
    thread.worker.on('exit', (code) => {
      // Its unanswered jobs are recovered here (the same function, so the same answers), also
      // when it died while stop() was waiting for them.
      for (const job of [...thread.jobs.values()])
        thread.answer({
          id: job.id,
          result: recoverPersonalSignAddress(job.message, job.signature),
        });
      const index = this.threads.indexOf(thread);
      if (index === -1) return; // ended by stop()
      this.threads.splice(index, 1);
      // One that never came up would fail again at once: the pool shrinks instead of looping.
      if (online && !this.stopping) this.spawn();
      this.options.logger.warn({ code, workers: this.threads.length }, 'signature worker exited');
    });
    this.threads.push(thread);
  }
}
