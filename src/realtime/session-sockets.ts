/**
 * The open sockets of each session on this pod, and closing them when the session ends on any
 * pod: ending a session is announced on one shared-state channel (revocations.ts), which every
 * pod with sockets listens to. Until the pod listens (at start, or while Redis was away when it
 * tried), it cannot learn of endings, so it takes no new sockets (`add` throws: close 4503).
 *
 * A socket is registered before its session is checked (ws-opening.ts): an ending announced
 * after the registration closes it, one announced before it is seen by the check.
 *
 * Pub/sub delivers at most once: an ending announced while this pod's subscriber connection was
 * down never arrives. So the pod also checks the sessions of all its sockets against the
 * ended-session marks, in batches of one round trip each: as soon as the subscription is back,
 * and every RECHECK_INTERVAL_MS in case a loss went unnoticed. When the marks cannot vouch (Redis
 * lost its data and the mirror is being rebuilt, see mirror-completeness.ts) or Redis does not
 * answer, nothing is closed and the check is tried again every RETRY_MS until it can be decided:
 * an unknown answer neither closes every socket nor lets an ended session keep its sockets for
 * longer than the mirror's rebuild.
 */
import type { Revocations } from '../identity/sessions/revocations.js';
import { DependencyUnavailableError } from '../platform/errors/dependency-unavailable.js';
import type { Unsubscribe } from '../platform/shared-state/shared-state.js';

/** How long to wait before subscribing or checking again after a failed attempt. */
const RETRY_MS = 1000;
/** Every open socket's session is checked this often even when no loss was noticed. */
const RECHECK_INTERVAL_MS = 30_000;
/** Sessions checked per round trip. */
const RECHECK_BATCH = 500;

export class SessionSockets<Socket> {
  private readonly bySession = new Map<string, Set<Socket>>();
  private unsubscribe: Unsubscribe | undefined;
  private listenRetry: NodeJS.Timeout | undefined;
  private recheckRetry: NodeJS.Timeout | undefined;
  private periodic: NodeJS.Timeout | undefined;
  private recheckRequested = false;
  private rechecking = false;
  private stopped = false;

  constructor(
    private readonly revocations: Revocations,
    /** Closes a socket whose session has ended. */
    private readonly closeEnded: (socket: Socket) => void,
    /** Told why a check of the sessions could not be made (it is retried). */
    private readonly reportFailure: (error: unknown) => void,
  ) {}

  /** Starts listening for endings, retrying in the background until shared state answers. */
  listen(): void {
    this.revocations
      .onSessionEnded(
        (sessionId) => this.closeSession(sessionId),
        () => this.recheck(),
      )
      .then(
        (unsubscribe) => {
          if (this.stopped) return void unsubscribe().catch(() => undefined);
          this.unsubscribe = unsubscribe;
          this.periodic = setInterval(() => this.recheck(), RECHECK_INTERVAL_MS);
          this.periodic.unref();
        },
        () => {
          if (!this.stopped) this.listenRetry = setTimeout(() => this.listen(), RETRY_MS);
        },
      );
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.listenRetry);
    clearTimeout(this.recheckRetry);
    clearInterval(this.periodic);
    void this.unsubscribe?.().catch(() => undefined);
  }

  add(sessionId: string, socket: Socket): void {
    if (this.unsubscribe === undefined)
      throw new DependencyUnavailableError('redis', 'not yet listening for session endings');
    const sockets = this.bySession.get(sessionId) ?? new Set<Socket>();
    sockets.add(socket);
    this.bySession.set(sessionId, sockets);
  }

  remove(sessionId: string, socket: Socket): void {
    const sockets = this.bySession.get(sessionId);
    if (sockets?.delete(socket) && sockets.size === 0) this.bySession.delete(sessionId);
  }

  private closeSession(sessionId: string): void {
    for (const socket of this.bySession.get(sessionId) ?? []) this.closeEnded(socket);
    this.bySession.delete(sessionId);
  }

  /**
   * Checks every open socket's session now. A request that comes while a check runs makes
   * another check follow it, since the running one may have read the marks before the gap.
   */
  private recheck(): void {
    this.recheckRequested = true;
    if (this.rechecking || this.stopped) return;
    this.rechecking = true;
    void this.recheckWhileRequested().finally(() => {
      this.rechecking = false;
    });
  }

  private async recheckWhileRequested(): Promise<void> {
    while (this.recheckRequested && !this.stopped) {
      this.recheckRequested = false;
      clearTimeout(this.recheckRetry);
      const decided = await this.closeEndedSessions().catch((error: unknown) => {
        this.reportFailure(error);
        return false;
      });
      if (!decided && !this.stopped) this.recheckRetry = setTimeout(() => this.recheck(), RETRY_MS);
    }
  }

  /** Closes the sockets of every session the marks say ended; false when they cannot vouch. */
  private async closeEndedSessions(): Promise<boolean> {
    const sessionIds = [...this.bySession.keys()];
    for (let start = 0; start < sessionIds.length; start += RECHECK_BATCH) {
      const ended = await this.revocations.endedAmong(
        sessionIds.slice(start, start + RECHECK_BATCH),
      );
      if (ended === 'unknown') return false;
      for (const sessionId of ended) this.closeSession(sessionId);
    }
    return true;
  }
}
