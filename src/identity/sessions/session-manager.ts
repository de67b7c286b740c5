/**
 * Session life cycle: opening one (at most MAX_SESSIONS per account, the least recently active
 * ends first, by its true last request: session-activity.ts), sliding its lifetime on activity,
 * ending one or all, and reading them. Ending a session is marked through `Revocations` first
 * (every pod refuses its tokens and closes its sockets at once), then recorded in storage, the
 * record that the mark is rebuilt from: if the store write fails the mark stays, and the session
 * is refused rather than revived. Then the listeners of other areas hear of it
 * (`onEnded`: push subscriptions of the session go).
 */
import { randomBytes } from 'node:crypto';
import type { Collection, DocumentStore } from '../../platform/store/document-store.js';
import { SESSIONS, maskIp } from './session.js';
import type { Session } from './session.js';
import { hashSecret, matchesHash, newSecret } from '../../platform/secrets/session-secrets.js';
import type { Revocations } from './revocations.js';
import type { SessionActivity } from './session-activity.js';
import type { SessionEndListener } from './session-end-listener.js';

export const MAX_SESSIONS = 5;
/** How long an ended session stays readable for support and audit before its record goes. */
const ENDED_RETENTION_MS = 24 * 3600_000;
/**
 * Activity is written at most this often per session (a write per request would not scale),
 * and at most half the idle timeout, so that skipping a write can never hide idleness.
 */
const MAX_TOUCH_INTERVAL_MS = 60_000;

export interface SessionPolicy {
  readonly ttlMs: number;
  /** 0: no idle timeout. */
  readonly idleTimeoutMs: number;
}

export interface OpenedSession {
  readonly session: Session;
  /** The session cookie value: `<session id>.<secret>`. */
  readonly cookieValue: string;
  readonly csrfToken: string;
  /** Sessions ended to make room (the cap of MAX_SESSIONS). */
  readonly evicted: string[];
}

export class SessionManager {
  private readonly sessions: Collection<Session>;
  /**
   * Per session, in this process: when activity was last written, and when it was last seen.
   * A request whose write the throttle skips is still activity: idleness counts from it.
   */
  private readonly lastTouched = new Map<string, { writtenAt: number; seenAt: number }>();
  private readonly touchIntervalMs: number;
  private readonly endListeners: SessionEndListener[] = [];

  constructor(
    store: DocumentStore,
    private readonly revocations: Revocations,
    private readonly activity: SessionActivity,
    private readonly policy: SessionPolicy,
  ) {
    this.sessions = store.collection<Session>(SESSIONS);
    this.touchIntervalMs =
      policy.idleTimeoutMs > 0
        ? Math.min(MAX_TOUCH_INTERVAL_MS, policy.idleTimeoutMs / 2)
        : MAX_TOUCH_INTERVAL_MS;
  }

  async open(
    init: Pick<Session, 'address' | 'authMethod' | 'deviceName' | 'userAgent' | 'ip' | 'dpopJkt'>,
  ): Promise<OpenedSession> {
    const evicted = await this.makeRoom(init.address);
    const now = new Date();
    const cookieSecret = newSecret();
    const csrfToken = newSecret();
    const session: Session = {
      ...init,
      _id: randomBytes(16).toString('base64url'),
      ip: maskIp(init.ip),
      createdAt: now,
      lastActiveAt: now,
      expiresAt: new Date(now.getTime() + this.policy.ttlMs),
      endedAt: null,
      endReason: null,
      cookieSecretHash: hashSecret(cookieSecret),
      csrfTokenHash: hashSecret(csrfToken),
    };
    await this.sessions.insertOne(session);
    this.rememberTouch(session._id, now.getTime());
    return { session, cookieValue: `${session._id}.${cookieSecret}`, csrfToken, evicted };
  }

  /** The session if it is active now (not ended, not expired, not idle too long). */
  async findActive(sessionId: string): Promise<Session | null> {
    const session = await this.sessions.findOne({ _id: sessionId });
    if (!session || session.endedAt) return null;
    const now = Date.now();
    if (session.expiresAt.getTime() <= now || this.isIdle(session, now)) {
      await this.end(session._id, session.expiresAt.getTime() <= now ? 'expired' : 'idle');
      return null;
    }
    return session;
  }

  /** The session a cookie value names, if the cookie's secret matches and the session is active. */
  async findByCookie(cookieValue: string): Promise<Session | null> {
    const [sessionId, secret] = cookieValue.split('.');
    if (!sessionId || !secret) return null;
    const session = await this.findActive(sessionId);
    return session && matchesHash(secret, session.cookieSecretHash) ? session : null;
  }

  /**
   * Records activity: the sliding lifetime restarts. Throttled per session and process; returns
   * false when the session turned out to be over (ended elsewhere, expired or idle).
   */
  async touch(sessionId: string, force = false): Promise<boolean> {
    const now = Date.now();
    const touched = this.lastTouched.get(sessionId);
    if (!force && touched && now - touched.writtenAt < this.touchIntervalMs) {
      touched.seenAt = now;
      this.activity.record(sessionId, now);
      return true;
    }
    const filter: Record<string, unknown> = {
      _id: sessionId,
      endedAt: null,
      expiresAt: { $gt: new Date(now) },
    };
    // A request this process saw within the idle timeout proves the session is not idle, even
    // when its write was skipped and the stored last activity is older.
    const seenRecently = touched !== undefined && now - touched.seenAt < this.policy.idleTimeoutMs;
    if (this.policy.idleTimeoutMs > 0 && !seenRecently)
      filter.lastActiveAt = { $gt: new Date(now - this.policy.idleTimeoutMs) };
    const result = await this.sessions.updateOne(filter, {
      $set: { lastActiveAt: new Date(now), expiresAt: new Date(now + this.policy.ttlMs) },
    });
    if (result.matchedCount === 0) {
      this.lastTouched.delete(sessionId);
      // Whatever the reason, make sure every pod refuses the session from now on.
      await this.end(sessionId, 'expired');
      return false;
    }
    this.rememberTouch(sessionId, now);
    return true;
  }

  /**
   * Ends a session: its tokens are refused and its open sockets closed on every pod. This is the
   * one way every session ends (logout, deletion, refresh-token reuse, revocation, the cap; later
   * account deletion and recovery). False when there was no active session with this id.
   */
  async end(sessionId: string, reason: string): Promise<boolean> {
    await this.revocations.endSession(sessionId);
    const now = new Date();
    const ended = await this.sessions.findOneAndUpdate(
      { _id: sessionId, endedAt: null },
      {
        $set: {
          endedAt: now,
          endReason: reason,
          expiresAt: new Date(now.getTime() + ENDED_RETENTION_MS),
        },
      },
    );
    this.lastTouched.delete(sessionId);
    // Also when it had ended already: a listener that missed the first end (a crash) catches up.
    await Promise.all(this.endListeners.map((listener) => listener.sessionEnded(sessionId)));
    return ended !== null;
  }

  /** Registers what another area does when a session ends (the identity area's factory does, once). */
  onEnded(listener: SessionEndListener): void {
    this.endListeners.push(listener);
  }

  /** Ends (as `end` does) every active session of an account, or every one but `keep`. Returns how many ended. */
  async endAll(address: string, reason: string, keep?: string): Promise<number> {
    const active = await this.listActive(address);
    const ending = active.filter((session) => session._id !== keep);
    const results = await Promise.all(ending.map((session) => this.end(session._id, reason)));
    return results.filter(Boolean).length;
  }

  /** Active sessions of an account, most recently active first. */
  async listActive(address: string): Promise<Session[]> {
    const now = Date.now();
    const sessions = await this.sessions.find(
      { address, endedAt: null },
      { sort: { lastActiveAt: -1 } },
    );
    return sessions.filter((s) => s.expiresAt.getTime() > now && !this.isIdle(s, now));
  }

  /** New cookie and CSRF secrets for an active session (resume): the previous ones stop matching. */
  async reissueCookie(sessionId: string): Promise<{ cookieValue: string; csrfToken: string }> {
    const cookieSecret = newSecret();
    const csrfToken = newSecret();
    await this.sessions.updateOne(
      { _id: sessionId },
      {
        $set: { cookieSecretHash: hashSecret(cookieSecret), csrfTokenHash: hashSecret(csrfToken) },
      },
    );
    return { cookieValue: `${sessionId}.${cookieSecret}`, csrfToken };
  }

  /** A new CSRF token for the session; the previous one stops matching. */
  async rotateCsrf(sessionId: string): Promise<string> {
    const csrfToken = newSecret();
    await this.sessions.updateOne(
      { _id: sessionId },
      { $set: { csrfTokenHash: hashSecret(csrfToken) } },
    );
    return csrfToken;
  }

  /** Ends the least recently active sessions beyond MAX_SESSIONS - 1, by their true last request. */
  private async makeRoom(address: string): Promise<string[]> {
    const active = await this.listActive(address);
    if (active.length < MAX_SESSIONS) return [];
    const seen = await this.activity.lastSeen(active.map((session) => session._id));
    const lastRequest = (session: Session) =>
      Math.max(
        session.lastActiveAt.getTime(),
        this.lastTouched.get(session._id)?.seenAt ?? 0,
        seen.get(session._id) ?? 0,
      );
    const surplus = active.sort((a, b) => lastRequest(b) - lastRequest(a)).slice(MAX_SESSIONS - 1);
    await Promise.all(surplus.map((session) => this.end(session._id, 'session_limit')));
    return surplus.map((session) => session._id);
  }

  private isIdle(session: Session, now: number): boolean {
    if (this.policy.idleTimeoutMs <= 0) return false;
    const lastActive = Math.max(
      session.lastActiveAt.getTime(),
      this.lastTouched.get(session._id)?.seenAt ?? 0,
    );
    return now - lastActive > this.policy.idleTimeoutMs;
  }

  private rememberTouch(sessionId: string, at: number): void {
    // Bounded: forgetting an entry costs one early write (and the activity seen since it).
    if (this.lastTouched.size > 100_000) this.lastTouched.clear();
    this.lastTouched.set(sessionId, {
      writtenAt: at,
      seenAt: Math.max(at, this.lastTouched.get(sessionId)?.seenAt ?? 0),
    });
  }
}
