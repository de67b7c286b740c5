/**
 * What another area decides about a send before it is stored, and what it adds to it: the
 * moderation area refuses suspended senders and new accounts writing to too many strangers, and
 * binds a franked message's commitment with its tag (moderation.proto). Declared here, on the
 * senders' side, so that messaging and channels depend on no such area.
 */
import { invalidArgument } from '../../platform/errors/api-error.js';

/** The other participant of a direct chat, and whether they ever wrote in it (read only when needed). */
export interface DirectPeer {
  readonly peer: string;
  hasWritten(): Promise<boolean>;
}

/** What a franking tag binds: the commitment to the message's place, sender and time. */
export interface FrankingBinding {
  readonly messageId: string;
  readonly conversationId: string;
  readonly senderAddress: string;
  readonly sentAt: Date;
  readonly commitment: Uint8Array;
}

export interface FrankingTag {
  readonly tag: Uint8Array;
  readonly keyId: string;
}

export interface SendAdmission {
  /**
   * Throws when the sender may not send now (`403 ACCOUNT_SUSPENDED`, `428 CHALLENGE_REQUIRED`);
   * `direct` for a message to someone else in a direct chat.
   */
  admit(sender: string, direct?: DirectPeer): Promise<void>;
  /** The server's tag over a franked message's binding. */
  frank(binding: FrankingBinding): FrankingTag;
}

export const FRANKING_COMMITMENT_BYTES = 32;

/** A request's `franking_commitment`: empty (not franked) or 32 bytes, else `400`. */
export function checkFrankingCommitment(commitment: Uint8Array): Uint8Array | undefined {
  if (commitment.length === 0) return undefined;
  if (commitment.length !== FRANKING_COMMITMENT_BYTES)
    throw invalidArgument(
      `franking_commitment must be empty or ${FRANKING_COMMITMENT_BYTES} bytes (HMAC-SHA256)`,
    );
  return commitment;
}
