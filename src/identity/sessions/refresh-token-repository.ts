/**
 * The refresh-token families in storage. Exchange is an atomic "mark used": of two concurrent
 * exchanges of one token only one wins, and a token presented after its exchange is reuse.
 */
import type { Collection, DocumentStore } from '../../platform/store/document-store.js';
import { REFRESH_TOKENS } from './refresh-token.js';
import type { RefreshTokenRecord } from './refresh-token.js';

export class RefreshTokenRepository {
  private readonly tokens: Collection<RefreshTokenRecord>;

  constructor(store: DocumentStore) {
    this.tokens = store.collection<RefreshTokenRecord>(REFRESH_TOKENS);
  }

  async record(token: RefreshTokenRecord): Promise<void> {
    await this.tokens.insertOne(token);
  }

  /** Marks the token used; the record as it was before, or null when it is unknown or was already used. */
  exchange(tokenId: string): Promise<RefreshTokenRecord | null> {
    return this.tokens.findOneAndUpdate(
      { _id: tokenId, usedAt: null },
      { $set: { usedAt: new Date() } },
      { returnDocument: 'before' },
    );
  }

  find(tokenId: string): Promise<RefreshTokenRecord | null> {
    return this.tokens.findOne({ _id: tokenId });
  }

  async removeAll(address: string): Promise<void> {
    await this.tokens.deleteMany({ address });
  }
}
