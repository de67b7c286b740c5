/**
 * The relay's queue of sealed envelopes, per recipient. Accepting is idempotent per recipient
 * and client id (a unique index); handing an envelope over is an atomic claim (queued to
 * delivered, payload removed), so of the send path and any number of api pods draining a
 * recipient's queue, exactly one delivers each envelope.
 */
import { randomUUID } from 'node:crypto';
import type { Collection, DocumentStore } from '../../platform/store/document-store.js';
import { DuplicateKeyError } from '../../platform/store/document-store.js';
import { QUEUE_TTL_MS, RETRY_WINDOW_MS, SEALED_ENVELOPES } from './sealed-envelope.js';
import type { SealedEnvelope } from './sealed-envelope.js';

export type Accepted =
  | { readonly duplicate: false; readonly envelope: SealedEnvelope }
  | { readonly duplicate: true; readonly envelope: SealedEnvelope };

export class SealedMailbox {
  private readonly envelopes: Collection<SealedEnvelope>;

  constructor(store: DocumentStore) {
    this.envelopes = store.collection<SealedEnvelope>(SEALED_ENVELOPES);
  }

  async accept(recipient: string, clientMessageId: string, payload: Uint8Array): Promise<Accepted> {
    const receivedAt = new Date();
    const envelope: SealedEnvelope = {
      _id: randomUUID(),
      recipient,
      clientMessageId,
      payload: Buffer.from(payload).toString('base64'),
      receivedAt,
      deliveredAt: null,
      expiresAt: new Date(receivedAt.getTime() + QUEUE_TTL_MS),
    };
    try {
      await this.envelopes.insertOne(envelope);
      return { duplicate: false, envelope };
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
      const first = await this.envelopes.findOne(
        { recipient, clientMessageId },
        { projection: { payload: 0 } },
      );
      // Gone between the two reads only if it expired just now: the retry is then new.
      if (!first) return this.accept(recipient, clientMessageId, payload);
      return { duplicate: true, envelope: first };
    }
  }

  /** Marks an envelope (or the recipient's oldest queued one) delivered and returns it with its payload; null when none is queued. */
  claim(filter: { _id: string } | { recipient: string }): Promise<SealedEnvelope | null> {
    const now = Date.now();
    return this.envelopes.findOneAndUpdate(
      { ...filter, deliveredAt: null },
      {
        $set: { deliveredAt: new Date(now), expiresAt: new Date(now + RETRY_WINDOW_MS) },
        $unset: { payload: '' },
      },
      { sort: { receivedAt: 1 }, returnDocument: 'before' },
    );
  }

  /** Puts a claimed envelope back in the queue (its hand-over failed). */
  async release(envelope: SealedEnvelope): Promise<void> {
    await this.envelopes.updateOne(
      { _id: envelope._id },
      {
        $set: {
          payload: envelope.payload,
          deliveredAt: null,
          expiresAt: new Date(envelope.receivedAt.getTime() + QUEUE_TTL_MS),
        },
      },
    );
  }

  /** Envelopes queued for the account follow it to its new address (recovery). */
  async moveQueue(from: string, to: string): Promise<void> {
    await this.envelopes.updateMany({ recipient: from }, { $set: { recipient: to } });
  }

  /** The account's undelivered envelopes, and the retry records of delivered ones, go (deletion). */
  async removeQueue(recipient: string): Promise<void> {
    await this.envelopes.deleteMany({ recipient });
  }

  async isDelivered(id: string): Promise<boolean> {
    return (
      (await this.envelopes.findOne({ _id: id }, { projection: { deliveredAt: 1 } }))
        ?.deliveredAt != null
    );
  }
}
