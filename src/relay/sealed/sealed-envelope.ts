/**
 * A sealed-sender envelope held by the relay (`sealed_envelopes`): the recipient, the opaque
 * payload, the client's id for retries and when it arrived. Nothing in it names the sender, by
 * design (relay.proto). The payload is kept until the envelope is handed to the recipient's
 * connections; the rest stays a day longer so that a retry is recognised, then TTL removes it.
 */
import type { IndexSpec } from '../../platform/store/document-store.js';

export interface SealedEnvelope {
  /** The relay's message id. */
  _id: string;
  recipient: string;
  clientMessageId: string;
  /** Base64; absent once delivered. */
  payload?: string;
  receivedAt: Date;
  deliveredAt: Date | null;
  /** TTL: 30 days after receipt while queued, 24 hours after delivery once delivered. */
  expiresAt: Date;
}

export const SEALED_ENVELOPES = 'sealed_envelopes';
export const QUEUE_TTL_MS = 30 * 24 * 60 * 60 * 1000;
export const RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;

export const sealedEnvelopeIndexes: IndexSpec[] = [
  {
    collection: SEALED_ENVELOPES,
    name: 'recipient_client_id',
    key: { recipient: 1, clientMessageId: 1 },
    unique: true,
  },
  {
    collection: SEALED_ENVELOPES,
    name: 'queue',
    key: { recipient: 1, deliveredAt: 1, receivedAt: 1 },
  },
  { collection: SEALED_ENVELOPES, name: 'expiry', key: { expiresAt: 1 }, expireAfterSeconds: 0 },
];
