/**
 * Short-lived, single-use records in shared state: MFA challenges, pending MFA sign-ins, SMS
 * codes, phone verification tokens and phone login challenges. Each must answer three
 * different ways once it is no longer usable — unknown (404 / 401), expired or already used
 * (410) — so a record outlives its validity by RETENTION_MS instead of vanishing with it.
 *
 * Ids that are secrets (tokens) are stored only as their SHA-256. "Used" is a separate
 * set-if-absent marker named by the record's serial, so of two concurrent consumers exactly
 * one wins, and a record replaced under the same id (a new SMS code for a number) starts
 * unused.
 */
import { randomBytes } from 'node:crypto';
import type { ConnectError } from '@connectrpc/connect';
import { gone } from '../errors/api-error.js';
import type { SharedState } from '../shared-state/shared-state.js';
import { hashSecret, newSecret } from './session-secrets.js';

/** How long an expired or used record is still recognised as such. */
const RETENTION_MS = 60 * 60_000;

export interface OneTimeRecord<T> {
  readonly payload: T;
  readonly expiresAt: Date;
  readonly expired: boolean;
  readonly used: boolean;
  /** Distinguishes this issue of the record from an earlier one under the same id. */
  readonly serial: string;
}

interface Stored<T> {
  payload: T;
  expiresAtMs: number;
  serial: string;
}

export class OneTimeRecords<T> {
  constructor(
    private readonly sharedState: SharedState,
    /** The key space, e.g. `mfa-challenge`. */
    private readonly namespace: string,
    /** What the records are, for error messages (`MFA challenge`). */
    private readonly what: string,
    readonly validMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Stores a record under `id` (default: a new random id, 256 bits), replacing any earlier one. */
  async issue(payload: T, id: string = newSecret()): Promise<{ id: string; expiresAt: Date }> {
    const stored: Stored<T> = {
      payload,
      expiresAtMs: this.now() + this.validMs,
      serial: randomBytes(12).toString('base64url'),
    };
    await this.sharedState.set(this.key(id), JSON.stringify(stored), {
      ttlMs: this.validMs + RETENTION_MS,
    });
    return { id, expiresAt: new Date(stored.expiresAtMs) };
  }

  /** The record under `id`, whatever its state; undefined when unknown (or long gone). */
  async read(id: string): Promise<OneTimeRecord<T> | undefined> {
    const text = await this.sharedState.get(this.key(id));
    if (text === null) return undefined;
    const stored = JSON.parse(text) as Stored<T>;
    const used = await this.sharedState.exists(this.usedKey(stored.serial));
    return {
      payload: stored.payload,
      expiresAt: new Date(stored.expiresAtMs),
      expired: this.now() >= stored.expiresAtMs,
      used,
      serial: stored.serial,
    };
  }

  /**
   * The usable record under `id`: `unknown()` when there is none or it is not `mine` (someone
   * else's is none of the caller's business), 410 GONE when expired or used.
   */
  async live(
    id: string,
    unknown: () => ConnectError,
    mine: (payload: T) => boolean = () => true,
  ): Promise<OneTimeRecord<T>> {
    const record = await this.read(id);
    if (!record || !mine(record.payload)) throw unknown();
    if (record.expired || record.used) throw gone(`The ${this.what} expired or was already used`);
    return record;
  }

  /** Spends a live record; 410 GONE when a concurrent request spent it first. */
  async consume(record: OneTimeRecord<T>): Promise<void> {
    if (!(await this.markUsed(record))) throw gone(`The ${this.what} was already used`);
  }

  /** Marks the record used; false when it already was (a concurrent consumer won). */
  markUsed(record: OneTimeRecord<T>): Promise<boolean> {
    return this.sharedState.set(this.usedKey(record.serial), '1', {
      ttlMs: this.validMs + RETENTION_MS,
      onlyIfAbsent: true,
    });
  }

  /** Counts an attempt at the record (e.g. a wrong code) and returns the count so far. */
  countAttempt(record: OneTimeRecord<T>): Promise<number> {
    return this.sharedState.incrementBy(
      `${this.namespace}:attempts:${record.serial}`,
      1,
      this.validMs + RETENTION_MS,
    );
  }

  private key(id: string): string {
    return `${this.namespace}:${hashSecret(id)}`;
  }

  private usedKey(serial: string): string {
    return `${this.namespace}:used:${serial}`;
  }
}
