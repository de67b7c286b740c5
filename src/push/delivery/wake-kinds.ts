/**
 * What wakes a device, and how urgently: each kind of event has its push TTL (how long the
 * push service keeps it for a device that is off) and Urgency (RFC 8030 section 5.3: `high`
 * may wake a phone from power saving). The payload names only the kind, and for messages the
 * conversation and sequence number: it makes the client connect and catch up, never carries
 * content, and for sealed messages not even a conversation (nothing may name the sender).
 */
export const WAKE_KINDS = {
  /** A new direct message (messaging). */
  message: { ttlSeconds: 24 * 3600, urgency: 'normal' },
  /** A new message in a group or channel the user belongs to (groups area, wired by the app). */
  group_message: { ttlSeconds: 24 * 3600, urgency: 'normal' },
  /**
   * A group message or channel post that mentions the user (messaging, channels): never
   * coalesced with earlier pushes, and sent even where the conversation's messages wake nobody
   * (channel posts), so that a mention is not lost in a busy or quiet chat.
   */
  mention: { ttlSeconds: 24 * 3600, urgency: 'high', coalesce: false },
  /** A sealed-sender envelope queued for the user (relay). */
  sealed_message: { ttlSeconds: 24 * 3600, urgency: 'normal' },
  /** An incoming call (call signaling): worthless once the caller has given up. */
  call: { ttlSeconds: 60, urgency: 'high' },
  /** A guardian is asked to approve an account recovery (recovery area, wired by the app). */
  recovery_request: { ttlSeconds: 3 * 24 * 3600, urgency: 'high' },
} as const satisfies Record<
  string,
  { ttlSeconds: number; urgency: 'very-low' | 'low' | 'normal' | 'high'; coalesce?: false }
>;

/** Whether pushes of this kind are coalesced within PUSH_COALESCE_WINDOW (all but mentions). */
export const isCoalesced = (kind: WakeKind): boolean =>
  !('coalesce' in WAKE_KINDS[kind] && WAKE_KINDS[kind].coalesce === false);

export type WakeKind = keyof typeof WAKE_KINDS;

export interface WakeUp {
  readonly kind: WakeKind;
  /** The conversation that changed (messages only). */
  readonly conversationId?: string;
  /** Its newest sequence number. */
  readonly seq?: number;
}

/** The push payload: JSON of at most a few dozen bytes plus the conversation id. */
export function payloadOf(wake: WakeUp): string {
  return JSON.stringify({
    kind: wake.kind,
    ...(wake.conversationId === undefined ? {} : { conversation_id: wake.conversationId }),
    ...(wake.seq === undefined ? {} : { seq: wake.seq }),
  });
}
