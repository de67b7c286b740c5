/**
 * Live location sharing: sessions started, fed and stopped by their owner, ended by expiry (the
 * sweeper, or the first update that finds them due), by a block between owner and peer, by a
 * new session to the same target, or by the end of the account. Positions go only to the
 * audience's connections open at that moment (`location.updated`, ephemeral), never to the
 * store, and never to a user who blocked the owner or whom the owner blocked: that filter is
 * checked at every relay, so it holds even when ending the sessions at a block failed. A peer
 * who had blocked the owner before the session started simply receives nothing, and the owner
 * is not told (as a message to a user who blocked the sender is withheld, not refused).
 */
import { randomBytes } from 'node:crypto';
import type { BlockList } from '../contacts/block-list.js';
import type { Conversations, Target } from '../messaging/conversations/conversations.js';
import { gone, notFound, permissionDenied } from '../platform/errors/api-error.js';
import { DuplicateKeyError } from '../platform/store/document-store.js';
import type { MessagingEvents } from '../events/messaging-events.js';
import type { LocationMetrics, SessionEnd } from './location-metrics.js';
import { ENDED_RECORD_KEPT_MS, sessionEventData } from './location-session.js';
import type { LocationSessionRecord } from './location-session.js';
import type { LocationSessions } from './location-sessions.js';

/** A checked position: sealed for the audience, or plain coordinates. */
export type Position =
  | { readonly ciphertext: Uint8Array }
  | {
      readonly latitude: number;
      readonly longitude: number;
      readonly accuracyM?: number;
      readonly headingDeg?: number;
      readonly speedMps?: number;
    };

/** Concurrent starts to one target meet the unique index; each retries this often at most. */
const START_ATTEMPTS = 3;

/** Later than any expiry, to ask for the earliest one. */
const END_OF_TIME = new Date(8.64e15);

export class LocationSharing {
  private readonly startListeners: ((expiresAt: Date) => void)[] = [];

  constructor(
    private readonly sessions: LocationSessions,
    private readonly conversations: Conversations,
    private readonly blocks: BlockList,
    private readonly events: MessagingEvents,
    private readonly metrics: LocationMetrics,
  ) {}

  /** Starts a session to `target` (already resolved for the owner), replacing an active one to it. */
  async start(owner: string, target: Target, durationMs: number): Promise<LocationSessionRecord> {
    if (target.peer !== '' && (await this.blocks.isBlocked(owner, target.peer)))
      throw permissionDenied('You have blocked this user');
    for (let attempt = 1; ; attempt += 1) {
      for (const previous of await this.sessions.activeTo(owner, target.conversationId))
        await this.end(previous, 'stopped', 'replaced');
      const startedAt = new Date();
      const expiresAt = new Date(startedAt.getTime() + durationMs);
      const session: LocationSessionRecord = {
        _id: randomBytes(16).toString('base64url'),
        owner,
        peer: target.peer,
        groupId: target.groupId,
        conversationId: target.conversationId,
        state: 'active',
        startedAt,
        expiresAt,
        stoppedAt: null,
        lastRelayedAt: null,
        purgeAt: new Date(expiresAt.getTime() + ENDED_RECORD_KEPT_MS),
      };
      try {
        await this.sessions.insert(session);
      } catch (error) {
        if (error instanceof DuplicateKeyError && attempt < START_ATTEMPTS) continue;
        throw error;
      }
      for (const listener of this.startListeners) listener(expiresAt);
      await this.events.ephemeral(
        'location.started',
        await this.audienceOf(session),
        sessionEventData(session),
      );
      return session;
    }
  }

  /** Relays `position` unless one was relayed in the last 5 s; 404 unknown, 410 ended. */
  async update(
    owner: string,
    sessionId: string,
    position: Position,
  ): Promise<{ session: LocationSessionRecord; at: Date }> {
    const at = new Date();
    const session = await this.activeSessionOf(owner, sessionId, at);
    if (!(await this.sessions.claimRelay(session._id, at))) {
      this.metrics.updates.inc({ outcome: 'throttled' });
      return { session, at };
    }
    this.metrics.updates.inc({ outcome: 'relayed' });
    await this.events.ephemeral('location.updated', await this.audienceOf(session), {
      session_id: session._id,
      owner_address: session.owner,
      peer_address: session.peer,
      group_id: session.groupId,
      ...positionData(position),
      updated_at: at.toISOString(),
      expires_at: session.expiresAt.toISOString(),
    });
    return { session, at };
  }

  /** Stops the owner's session; one that already ended is returned as it is. */
  async stop(owner: string, sessionId: string): Promise<LocationSessionRecord> {
    const session = await this.ownedSession(owner, sessionId);
    if (session.state !== 'active') return session;
    const due = session.expiresAt.getTime() <= Date.now();
    const ended = await this.end(session, due ? 'expired' : 'stopped', due ? 'expired' : 'stopped');
    return ended ?? (await this.ownedSession(owner, sessionId));
  }

  /** A block between two users ends the sessions between them (contacts' block listener). */
  async endBetween(blocker: string, blocked: string): Promise<void> {
    // The peer saw the session until now: it hears of its end, whichever of the two blocked.
    for (const session of await this.sessions.activeBetween(blocker, blocked))
      await this.end(session, 'stopped', 'blocked', [session.peer]);
  }

  /** The account moved or is being deleted: every session it shares or is shared with directly ends. */
  async endAllOf(address: string): Promise<void> {
    for (const session of await this.sessions.activeOf(address))
      await this.end(session, 'stopped', 'account');
  }

  /** Calls `listener` with the expiry of every session this process starts (the sweeper wakes for it). */
  onStarted(listener: (expiresAt: Date) => void): void {
    this.startListeners.push(listener);
  }

  /** When the earliest active session expires (epoch ms), if any is active. */
  async nextExpiry(): Promise<number | undefined> {
    const [earliest] = await this.sessions.dueForExpiry(END_OF_TIME, 1);
    return earliest?.expiresAt.getTime();
  }

  /** Ends up to `limit` sessions past their expiry (the sweeper); answers how many were due. */
  async expireDue(limit: number): Promise<number> {
    const due = await this.sessions.dueForExpiry(new Date(), limit);
    for (const session of due) await this.end(session, 'expired', 'expired');
    return due.length;
  }

  private async ownedSession(owner: string, sessionId: string): Promise<LocationSessionRecord> {
    const session = await this.sessions.find(sessionId);
    if (!session || session.owner !== owner)
      throw notFound('No location-sharing session with this id');
    return session;
  }

  /** The owner's session, active and not yet due; a due one is expired here (410). */
  private async activeSessionOf(
    owner: string,
    sessionId: string,
    at: Date,
  ): Promise<LocationSessionRecord> {
    const session = await this.ownedSession(owner, sessionId);
    if (session.state === 'active' && session.expiresAt.getTime() <= at.getTime())
      await this.end(session, 'expired', 'expired');
    else if (session.state === 'active') return session;
    throw gone('The location-sharing session has ended');
  }

  /** Ends an active session and tells its audience (and `alsoTell`), if no one else ended it first. */
  private async end(
    session: LocationSessionRecord,
    state: 'stopped' | 'expired',
    reason: SessionEnd,
    alsoTell: string[] = [],
  ): Promise<LocationSessionRecord | null> {
    const ended = await this.sessions.end(session._id, state, new Date());
    if (!ended) return null;
    this.metrics.sessionsEnded.inc({ reason });
    await this.events.ephemeral(
      'location.ended',
      [...(await this.audienceOf(ended)), ...alsoTell],
      sessionEventData(ended),
    );
    return ended;
  }

  /**
   * The session's peer, or its group's members but the owner, without the users between whom
   * and the owner there is a block in either direction.
   */
  private async audienceOf(session: LocationSessionRecord): Promise<string[]> {
    const candidates =
      session.peer !== ''
        ? [session.peer]
        : (await this.conversations.memberAddresses(session.conversationId)).filter(
            (member) => member !== session.owner,
          );
    const [blockedByOwner, blockingOwner] = await Promise.all([
      this.blocks.blockedAmong(session.owner, candidates),
      this.blocks.blockersAmong(session.owner, candidates),
    ]);
    return candidates.filter((member) => !blockedByOwner.has(member) && !blockingOwner.has(member));
  }
}

function positionData(position: Position) {
  if ('ciphertext' in position)
    return { ciphertext: Buffer.from(position.ciphertext).toString('base64') };
  return {
    latitude: position.latitude,
    longitude: position.longitude,
    accuracy_m: position.accuracyM ?? null,
    heading_deg: position.headingDeg ?? null,
    speed_mps: position.speedMps ?? null,
  };
}
