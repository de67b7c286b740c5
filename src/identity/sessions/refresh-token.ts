import type { IndexSpec } from '../../platform/store/document-store.js';

/**
 * One issued refresh token. The family is the session: every token rotated from one sign-in
 * shares the session id, and each records its parent, so a reused token can be traced to its
 * family and the whole family revoked.
 */
export interface RefreshTokenRecord {
  /** The token's `jti`. */
  _id: string;
  sessionId: string;
  address: string;
  /** The token this one was rotated from; null for the first of a family. */
  parentId: string | null;
  /** When it was exchanged; a second exchange is reuse. */
  usedAt: Date | null;
  expiresAt: Date;
}

export const REFRESH_TOKENS = 'refresh_tokens';

export const refreshTokenIndexes: IndexSpec[] = [
  { collection: REFRESH_TOKENS, name: 'expiry', key: { expiresAt: 1 }, expireAfterSeconds: 0 },
  { collection: REFRESH_TOKENS, name: 'by_session', key: { sessionId: 1 } },
];
