import { unauthenticated } from '../../platform/errors/api-error.js';
import { TokenVerificationError } from '../tokens/token-service.js';
import type { TokenService } from '../tokens/token-service.js';

/**
 * Runs a token verification, turning its failure into the 401 a client may see (no details).
 * An expired access token says so (`TOKEN_EXPIRED`: refresh and retry); every other failure
 * is `UNAUTHORIZED`, as the refresh contract documents for refresh tokens.
 */
export async function asUnauthenticated<T>(
  verification: Promise<T>,
  what: 'access token' | 'refresh token' | 'MFA token',
): Promise<T> {
  try {
    return await verification;
  } catch (error) {
    if (error instanceof TokenVerificationError) {
      throw error.failure === 'expired'
        ? unauthenticated(
            `The ${what} has expired`,
            what === 'access token' ? 'TOKEN_EXPIRED' : 'UNAUTHORIZED',
          )
        : unauthenticated(`The ${what} is invalid`);
    }
    throw error;
  }
}

export async function verifyAccessTokenOrThrow(tokens: TokenService, token: string) {
  const claims = await asUnauthenticated(tokens.verifyAccessToken(token), 'access token');
  return {
    address: claims.sub,
    sessionId: claims.sid,
    tokenId: claims.jti,
    expiresAt: new Date(claims.exp * 1000),
  };
}
