/**
 * Redis seen from outside: every command timed into `redis_command_duration_seconds{command}`,
 * its failures counted, and, under a traced request, a client span (`redis <command>`, a
 * script's name as an attribute). A decorator over the shared-state port, applied only when
 * the port is Redis (open-shared-state.ts): the in-process state has nothing to measure.
 * Subscriptions are long-lived, not commands: they pass through.
 */
import { DependencyUnavailableError } from '../errors/dependency-unavailable.js';
import type { DependencyMetrics } from '../metrics/dependency-metrics.js';
import { SpanKind, runInSpan, startChildSpan, tracingOn } from '../tracing/spans.js';
import type { Attributes } from '../tracing/spans.js';
import type { SharedState } from './shared-state.js';

/** The label's whole value set. */
type CommandName =
  'get' | 'mget' | 'set' | 'getdel' | 'del' | 'exists' | 'incrby' | 'script' | 'publish' | 'numsub';

export class ObservedSharedState implements SharedState {
  private readonly durations = new Map<CommandName, { observe(seconds: number): void }>();

  constructor(
    private readonly inner: SharedState,
    private readonly metrics: DependencyMetrics,
  ) {}

  get: SharedState['get'] = (key) => this.command('get', () => this.inner.get(key));
  getMany: SharedState['getMany'] = (keys) => this.command('mget', () => this.inner.getMany(keys));
  set: SharedState['set'] = (...a) => this.command('set', () => this.inner.set(...a));
  take: SharedState['take'] = (key) => this.command('getdel', () => this.inner.take(key));
  delete: SharedState['delete'] = (key) => this.command('del', () => this.inner.delete(key));
  exists: SharedState['exists'] = (key) => this.command('exists', () => this.inner.exists(key));
  incrementBy: SharedState['incrementBy'] = (...a) =>
    this.command('incrby', () => this.inner.incrementBy(...a));
  run: SharedState['run'] = (script, keys, args) =>
    this.command('script', () => this.inner.run(script, keys, args), {
      'db.redis.script': script.name,
    });
  publish: SharedState['publish'] = (...a) =>
    this.command('publish', () => this.inner.publish(...a));
  hasSubscribers: SharedState['hasSubscribers'] = (channel) =>
    this.command('numsub', () => this.inner.hasSubscribers(channel));
  subscribe: SharedState['subscribe'] = (...a) => this.inner.subscribe(...a);
  ping: SharedState['ping'] = () => this.inner.ping();
  close: SharedState['close'] = () => this.inner.close();

  private async command<R>(
    command: CommandName,
    work: () => Promise<R>,
    attributes?: Attributes,
  ): Promise<R> {
    const started = process.hrtime.bigint();
    const span = tracingOn()
      ? startChildSpan(
          `redis ${command}`,
          { 'db.system.name': 'redis', 'db.operation.name': command, ...attributes },
          SpanKind.CLIENT,
        )
      : undefined;
    try {
      return await runInSpan(span, work);
    } catch (error) {
      const reason = error instanceof DependencyUnavailableError ? 'unavailable' : 'failed';
      this.metrics.redisErrors.inc({ command, reason });
      throw error;
    } finally {
      this.durationOf(command).observe(Number(process.hrtime.bigint() - started) / 1e9);
    }
  }

  private durationOf(command: CommandName): { observe(seconds: number): void } {
    let duration = this.durations.get(command);
    if (!duration) {
      duration = this.metrics.redisDuration.labels(command);
      this.durations.set(command, duration);
    }
    return duration;
  }
}
