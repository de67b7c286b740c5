/**
 * Issues the token pair of a session and records the refresh token in its family. Every RPC
 * that issues tokens returns them in the same members (access_token … session_id).
 */
import type { RefreshTokenRepository } from '../sessions/refresh-token-repository.js';
import type { TokenService } from '../tokens/token-service.js';

export interface TokenPairFields {
  accessToken: string;
  refreshToken: string;
  expiresAt: string;
  tokenType: 'Bearer';
  expiresIn: number;
  refreshExpiresAt: string;
  sessionId: string;
}

export class TokenPairIssuer {
  constructor(
    private readonly tokens: TokenService,
    private readonly refreshTokens: RefreshTokenRepository,
  ) {}

  async issue(subject: {
    address: string;
    sessionId: string;
    parentId: string | null;
    dpopJkt: string | null;
  }): Promise<TokenPairFields> {
    const access = await this.tokens.issueAccessToken({
      sub: subject.address,
      sid: subject.sessionId,
    });
    const refresh = await this.tokens.issueRefreshToken({
      sub: subject.address,
      sid: subject.sessionId,
      fam: subject.sessionId,
      ...(subject.dpopJkt ? { jkt: subject.dpopJkt } : {}),
    });
    await this.refreshTokens.record({
      _id: refresh.jti,
      sessionId: subject.sessionId,
      address: subject.address,
      parentId: subject.parentId,
      usedAt: null,
      expiresAt: refresh.expiresAt,
    });
    return {
      accessToken: access.token,
      refreshToken: refresh.token,
      expiresAt: access.expiresAt.toISOString(),
      tokenType: 'Bearer',
      expiresIn: Math.round((access.expiresAt.getTime() - access.issuedAt.getTime()) / 1000),
      refreshExpiresAt: refresh.expiresAt.toISOString(),
      sessionId: subject.sessionId,
    };
  }
}
