/**
 * The store port seen from outside: every collection operation timed into
 * `store_operation_duration_seconds{operation}`, its failures counted, and, under a traced
 * request, a client span (`store <operation>` with the collection). One decorator over either
 * engine, so MongoDB and the embedded store are measured alike at the port every area uses.
 */
import { DependencyUnavailableError } from '../errors/dependency-unavailable.js';
import type { DependencyMetrics } from '../metrics/dependency-metrics.js';
import { SpanKind, runInSpan, startChildSpan, tracingOn } from '../tracing/spans.js';
import { DuplicateKeyError } from './duplicate-key-error.js';
import type { Collection, Document, DocumentStore } from './document-store.js';

type Operation = keyof Collection<Document>;

export class ObservedStore implements DocumentStore {
  constructor(
    private readonly inner: DocumentStore,
    private readonly metrics: DependencyMetrics,
  ) {}

  /** The histogram's child per operation, resolved once: an observation then hashes no labels. */
  private readonly durations = new Map<Operation, { observe(seconds: number): void }>();

  collection<T extends Document>(name: string): Collection<T> {
    return new ObservedCollection(name, this.inner.collection<T>(name), this);
  }

  /** @internal the collections' sample of one operation. */
  record(operation: Operation, seconds: number, error: unknown): void {
    let duration = this.durations.get(operation);
    if (!duration) {
      duration = this.metrics.storeDuration.labels(operation);
      this.durations.set(operation, duration);
    }
    duration.observe(seconds);
    if (error !== undefined && !(error instanceof DuplicateKeyError)) {
      const reason = error instanceof DependencyUnavailableError ? 'unavailable' : 'failed';
      this.metrics.storeErrors.inc({ operation, reason });
    }
  }

  ensureIndexes: DocumentStore['ensureIndexes'] = (indexes) => this.inner.ensureIndexes(indexes);
  explain: DocumentStore['explain'] = (...args) => this.inner.explain(...args);
  ping: DocumentStore['ping'] = () => this.inner.ping();
  close: DocumentStore['close'] = () => this.inner.close();
}

class ObservedCollection<T extends Document> implements Collection<T> {
  constructor(
    private readonly name: string,
    private readonly inner: Collection<T>,
    private readonly store: ObservedStore,
  ) {}

  findOne: Collection<T>['findOne'] = (...a) => this.run('findOne', () => this.inner.findOne(...a));
  find: Collection<T>['find'] = (...a) => this.run('find', () => this.inner.find(...a));
  countDocuments: Collection<T>['countDocuments'] = (...a) =>
    this.run('countDocuments', () => this.inner.countDocuments(...a));
  insertOne: Collection<T>['insertOne'] = (...a) =>
    this.run('insertOne', () => this.inner.insertOne(...a));
  insertMany: Collection<T>['insertMany'] = (...a) =>
    this.run('insertMany', () => this.inner.insertMany(...a));
  updateOne: Collection<T>['updateOne'] = (...a) =>
    this.run('updateOne', () => this.inner.updateOne(...a));
  updateMany: Collection<T>['updateMany'] = (...a) =>
    this.run('updateMany', () => this.inner.updateMany(...a));
  findOneAndUpdate: Collection<T>['findOneAndUpdate'] = (...a) =>
    this.run('findOneAndUpdate', () => this.inner.findOneAndUpdate(...a));
  findOneAndDelete: Collection<T>['findOneAndDelete'] = (...a) =>
    this.run('findOneAndDelete', () => this.inner.findOneAndDelete(...a));
  deleteOne: Collection<T>['deleteOne'] = (...a) =>
    this.run('deleteOne', () => this.inner.deleteOne(...a));
  deleteMany: Collection<T>['deleteMany'] = (...a) =>
    this.run('deleteMany', () => this.inner.deleteMany(...a));

  private async run<R>(operation: Operation, work: () => Promise<R>): Promise<R> {
    const started = process.hrtime.bigint();
    const span = tracingOn()
      ? startChildSpan(
          `store ${operation}`,
          { 'db.operation.name': operation, 'db.collection.name': this.name },
          SpanKind.CLIENT,
        )
      : undefined;
    let failure: unknown;
    try {
      return await runInSpan(span, work);
    } catch (error) {
      failure = error ?? new Error('rejected without a reason');
      throw error;
    } finally {
      this.store.record(operation, Number(process.hrtime.bigint() - started) / 1e9, failure);
    }
  }
}
