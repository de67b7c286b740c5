/**
 * The JSON envelope of every server-to-client WebSocket frame (documented in
 * docs/realtime.md):
 *
 *   {"seq": 12, "stream": "<id>", "type": "message.new", "id": "<uuid>", "at": "<ISO-8601>", "data": {...}}
 *
 * `seq` is the user's event sequence within `stream`: both are present on durable events only
 * (new messages and their edits, deletions, reactions and pins, read markers, view-once
 * consumption, sealed-sender envelopes, recovery notices, story views), which are kept for replay and increase by
 * one per event across all of the user's devices; ephemeral events (typing, presence, call
 * signaling) have neither and are never replayed. The sequence is added by the shared-state
 * script that numbers the event (user-event-stream.ts). Building the envelope as a string once, at the publisher,
 * lets every ws pod forward it without parsing or re-serializing it per connection.
 */
import { randomUUID } from 'node:crypto';

/**
 * Durable events: stored for replay, numbered per user. (Channels number their posts and their
 * posts' changes per channel instead: channel-post-stream.ts.)
 */
export const DURABLE_EVENT_TYPES = [
  'message.new',
  'message.read',
  'message.viewed',
  'sealed.message',
  'recovery.guardian_chosen',
  'recovery.request_updated',
  'story.viewed',
  'message.edited',
  'message.deleted',
  'message.hidden',
  'message.reaction',
  'message.pinned',
  'message.unpinned',
] as const;
/** Ephemeral events: delivered to the connections open at that moment, never stored. */
export const EPHEMERAL_EVENT_TYPES = [
  'typing',
  'presence',
  'profile.changed',
  'location.started',
  'location.updated',
  'location.ended',
  'poll.updated',
  'call.offer',
  'call.answer',
  'call.ice_candidate',
  'call.hangup',
] as const;

export type DurableEventType = (typeof DURABLE_EVENT_TYPES)[number];
export type EphemeralEventType = (typeof EPHEMERAL_EVENT_TYPES)[number];

/** An event without its sequence number: `{"type":…,"id":…,"at":…,"data":…}`. */
export function eventJson(
  type: DurableEventType | EphemeralEventType,
  data: unknown,
  at = new Date(),
): string {
  return JSON.stringify({ type, id: randomUUID(), at: at.toISOString(), data });
}

/** A frame of the connection protocol itself (hello, ack, error, resync_required, pong). */
export function controlFrame(type: string, fields: Record<string, unknown>): string {
  return JSON.stringify({ type, ...fields });
}
