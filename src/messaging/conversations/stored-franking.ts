/**
 * A franked message's or channel post's commitment (the sender's HMAC-SHA256 of the plaintext)
 * and the server's Ed25519 tag over it with the message's binding, by key `keyId`
 * (moderation.proto). Here, beside the relation target that carries it to a report, because
 * stored messages, channel posts and relation targets all hold it.
 */
import type { Binary } from 'bson';

export interface StoredFranking {
  commitment: Binary;
  tag: Binary;
  keyId: string;
}
