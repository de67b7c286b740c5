/**
 * A session held as tokens (Node, native apps, browsers that prefer it): `Authorization: Bearer`
 * on every call, the access token refreshed shortly before it expires or after a 401, with one
 * refresh in flight however many calls need it (a second exchange of the same refresh token
 * would be taken for theft and revoke the family). A refresh refused as a replay, or refused at
 * all, ends the session: `SessionEndedError`, and the `onEnded` listeners are told once.
 */
import { ApiError, SessionEndedError } from '../api-error.js';
import { AuthorizedSession, apiErrorOf, fetchOrError } from './authorized-session.js';
import type { SentHeaders } from './authorized-session.js';
import { dpopProof } from './dpop-key.js';

export interface SessionTokens {
  readonly accessToken: string;
  readonly refreshToken: string;
  /** When the access token expires, in ms since the epoch. */
  readonly accessExpiresAt: number;
}

/** Refresh this long before the access token expires, so that a call never carries a dead one. */
const REFRESH_MARGIN_MS = 60_000;

export class TokenSession extends AuthorizedSession {
  private refreshing: Promise<void> | undefined;
  private ended: SessionEndedError | undefined;
  private readonly endedListeners = new Set<(error: SessionEndedError) => void>();
  private readonly tokenListeners = new Set<(tokens: SessionTokens) => void>();

  constructor(
    baseUrl: string,
    private current: SessionTokens,
    /** The key the refresh-token family is bound to (DPoP), if it is bound. */
    readonly dpopKey?: CryptoKeyPair,
  ) {
    super(baseUrl, 'omit');
  }

  get tokens(): SessionTokens {
    return this.current;
  }

  /** Tells `listener` of every new token pair (to persist it); returns the unsubscribe. */
  onTokens(listener: (tokens: SessionTokens) => void): () => void {
    this.tokenListeners.add(listener);
    return () => this.tokenListeners.delete(listener);
  }

  /** Tells `listener` once when the session ends; returns the unsubscribe. */
  onEnded(listener: (error: SessionEndedError) => void): () => void {
    this.endedListeners.add(listener);
    return () => this.endedListeners.delete(listener);
  }

  protected async authenticate(): Promise<Record<string, string>> {
    if (this.ended) throw this.ended;
    if (this.current.accessExpiresAt - Date.now() < REFRESH_MARGIN_MS) await this.refresh();
    return { authorization: `Bearer ${this.current.accessToken}` };
  }

  protected async repair(error: ApiError, sent: SentHeaders): Promise<boolean> {
    if (error.status !== 401) return false;
    // Another call refreshed meanwhile: just send again with the new token.
    if (sent.authorization !== `Bearer ${this.current.accessToken}`) return true;
    await this.refresh();
    return true;
  }

  /** Exchanges the refresh token now (one exchange at a time, shared by all callers). */
  refresh(): Promise<void> {
    this.refreshing ??= this.exchange().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async exchange(): Promise<void> {
    if (this.ended) throw this.ended;
    const url = `${this.baseUrl}/api/v1/auth/refresh`;
    const response = await fetchOrError(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(this.dpopKey ? { dpop: await dpopProof(this.dpopKey, 'POST', url) } : {}),
      },
      body: JSON.stringify({ refresh_token: this.current.refreshToken }),
    });
    if (!response.ok) {
      const error = await apiErrorOf(response);
      // A 429 or 503 says nothing about the session: the caller may try again later.
      if (error.retryable) throw error;
      this.end(new SessionEndedError(error.status, error.code, error.message));
    }
    const body = (await response.json()) as {
      access_token: string;
      refresh_token: string;
      expires_at: string;
    };
    this.current = {
      accessToken: body.access_token,
      refreshToken: body.refresh_token,
      accessExpiresAt: Date.parse(body.expires_at),
    };
    for (const listener of this.tokenListeners) listener(this.current);
  }

  private end(error: SessionEndedError): never {
    if (!this.ended) {
      this.ended = error;
      for (const listener of this.endedListeners) listener(error);
    }
    throw this.ended;
  }
}
