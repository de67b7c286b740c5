/**
 * Every query of `location_sessions`. A session leaves `active` by one conditional update
 * (`end`), so of several pods ending it at once (a stop, the expiry sweeper, a block) exactly
 * one does, and only that one tells the audience.
 */
import type { Collection, DocumentStore } from '../platform/store/document-store.js';
import { LOCATION_SESSIONS } from './location-session.js';
import type { LocationSessionRecord } from './location-session.js';

/** Updates are relayed at most once per this interval per session (location.proto). */
export const RELAY_INTERVAL_MS = 5000;

export class LocationSessions {
  private readonly sessions: Collection<LocationSessionRecord>;

  constructor(store: DocumentStore) {
    this.sessions = store.collection<LocationSessionRecord>(LOCATION_SESSIONS);
  }

  /** DuplicateKeyError when the owner has another active session to the target (a concurrent start). */
  async insert(session: LocationSessionRecord): Promise<void> {
    await this.sessions.insertOne(session);
  }

  find(sessionId: string): Promise<LocationSessionRecord | null> {
    return this.sessions.findOne({ _id: sessionId });
  }

  activeTo(owner: string, conversationId: string): Promise<LocationSessionRecord[]> {
    return this.sessions.find({ owner, conversationId, state: 'active' });
  }

  /** The sessions between two users, in either direction. */
  activeBetween(a: string, b: string): Promise<LocationSessionRecord[]> {
    return this.sessions.find({
      state: 'active',
      $or: [
        { owner: a, peer: b },
        { owner: b, peer: a },
      ],
    });
  }

  /** The sessions a user shares or is shared with directly. */
  activeOf(address: string): Promise<LocationSessionRecord[]> {
    return this.sessions.find({ state: 'active', $or: [{ owner: address }, { peer: address }] });
  }

  dueForExpiry(now: Date, limit: number): Promise<LocationSessionRecord[]> {
    return this.sessions.find(
      { state: 'active', expiresAt: { $lte: now } },
      { sort: { expiresAt: 1 }, limit },
    );
  }

  /** Ends an active session; the ended record, or null when it had already ended. */
  end(
    sessionId: string,
    state: 'stopped' | 'expired',
    at: Date,
  ): Promise<LocationSessionRecord | null> {
    return this.sessions.findOneAndUpdate(
      { _id: sessionId, state: 'active' },
      { $set: { state, stoppedAt: state === 'stopped' ? at : null } },
      { returnDocument: 'after' },
    );
  }

  /** True when an update may be relayed now: none was in the last RELAY_INTERVAL_MS (taken atomically). */
  async claimRelay(sessionId: string, now: Date): Promise<boolean> {
    const paced = new Date(now.getTime() - RELAY_INTERVAL_MS);
    const result = await this.sessions.updateOne(
      {
        _id: sessionId,
        state: 'active',
        $or: [{ lastRelayedAt: null }, { lastRelayedAt: { $lte: paced } }],
      },
      { $set: { lastRelayedAt: now } },
    );
    return result.matchedCount === 1;
  }
}
