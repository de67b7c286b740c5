/**
 * The open sockets of each session on this pod, and closing them when the session ends on any
 * pod: ending a session is announced on one shared-state channel (revocations.ts), which every
 * pod with sockets listens to. Until the pod listens (at start, or while Redis was away when it
 * tried), it cannot learn of endings, so it takes no new sockets (`add` throws: close 4503).
 *
 * A socket is registered before its session is checked (ws-endpoint.ts): an ending announced
 * after the registration closes it, one announced before it is seen by the check.
 */
import type { Revocations } from '../identity/sessions/revocations.js';
import { DependencyUnavailableError } from '../platform/errors/dependency-unavailable.js';
import type { Unsubscribe } from '../platform/shared-state/shared-state.js';

/** How long to wait before subscribing again after a failed attempt. */
const RETRY_MS = 1000;

export class SessionSockets<Socket> {
  private readonly bySession = new Map<string, Set<Socket>>();
  private unsubscribe: Unsubscribe | undefined;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly revocations: Revocations,
    /** Closes a socket whose session has ended. */
    private readonly closeEnded: (socket: Socket) => void,
  ) {}

  /** Starts listening for endings, retrying in the background until shared state answers. */
  listen(): void {
    this.revocations.onSessionEnded((sessionId) => this.closeSession(sessionId)).then(
      (unsubscribe) => {
        if (this.stopped) void unsubscribe().catch(() => undefined);
        else this.unsubscribe = unsubscribe;
      },
      () => {
        if (!this.stopped) this.retry = setTimeout(() => this.listen(), RETRY_MS);
      },
    );
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retry);
    void this.unsubscribe?.().catch(() => undefined);
  }

  add(sessionId: string, socket: Socket): void {
    if (this.unsubscribe === undefined) throw new DependencyUnavailableError('redis', 'not yet listening for session endings');
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
}
