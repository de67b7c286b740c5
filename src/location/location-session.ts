import type { IndexSpec } from '../platform/store/document-store.js';

/**
 * A location-sharing session (location.proto). No position is ever stored: updates are relayed
 * to the audience's open connections as they arrive. The record is kept an hour past its
 * expiry (`purgeAt`, TTL index) so that an update for an ended session answers 410, not 404.
 */
export interface LocationSessionRecord {
  /** The session id: 22 characters of base64url (128 random bits). */
  _id: string;
  owner: string;
  /** The user shared with; '' for a group session. */
  peer: string;
  /** The group shared with; '' for a direct session. */
  groupId: string;
  /** The conversation of the target: one active session per owner and conversation. */
  conversationId: string;
  state: LocationSessionState;
  startedAt: Date;
  expiresAt: Date;
  /** When the owner stopped it, or it was ended by a block, a new session or the account's end. */
  stoppedAt: Date | null;
  /** When an update was last relayed: the next is relayed no sooner than RELAY_INTERVAL_MS later. */
  lastRelayedAt: Date | null;
  purgeAt: Date;
}

export type LocationSessionState = 'active' | 'stopped' | 'expired';

export const LOCATION_SESSIONS = 'location_sessions';

/** How long an ended session's record stays, for 410 rather than 404. */
export const ENDED_RECORD_KEPT_MS = 3_600_000;

export const locationSessionIndexes: IndexSpec[] = [
  {
    collection: LOCATION_SESSIONS,
    name: 'one_active_per_target',
    key: { owner: 1, conversationId: 1 },
    unique: true,
    partialFilterExpression: { state: 'active' },
  },
  { collection: LOCATION_SESSIONS, name: 'active_by_expiry', key: { state: 1, expiresAt: 1 } },
  { collection: LOCATION_SESSIONS, name: 'by_owner', key: { owner: 1, state: 1 } },
  { collection: LOCATION_SESSIONS, name: 'by_peer', key: { peer: 1, state: 1 } },
  { collection: LOCATION_SESSIONS, name: 'purge', key: { purgeAt: 1 }, expireAfterSeconds: 0 },
];

/** The `LocationSession` message, in protobuf-es field names. */
export function sessionView(session: LocationSessionRecord) {
  return {
    sessionId: session._id,
    ownerAddress: session.owner,
    peerAddress: session.peer,
    groupId: session.groupId,
    state: session.state,
    startedAt: session.startedAt.toISOString(),
    expiresAt: session.expiresAt.toISOString(),
    stoppedAt: session.stoppedAt?.toISOString() ?? '',
  };
}

/** The same, as JSON names for /ws events. */
export function sessionEventData(session: LocationSessionRecord) {
  const view = sessionView(session);
  return {
    session_id: view.sessionId,
    owner_address: view.ownerAddress,
    peer_address: view.peerAddress,
    group_id: view.groupId,
    state: view.state,
    started_at: view.startedAt,
    expires_at: view.expiresAt,
    stopped_at: view.stoppedAt,
  };
}
