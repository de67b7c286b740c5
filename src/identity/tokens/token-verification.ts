/**
 * What every process role needs to recognise a caller, without storage: the key ring and token
 * service, and the shared revocation markers. The api role builds the rest of identity on top;
 * the ws role uses only this (for the JWT subprotocol fallback of /ws).
 */
import type { TokenSettings } from '../../platform/config/settings.js';
import type { SharedState } from '../../platform/shared-state/shared-state.js';
import { Revocations } from '../sessions/revocations.js';
import { loadKeyRing } from './key-ring.js';
import { TokenService } from './token-service.js';

export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
/** How long revocation markers must outlive the tokens they revoke (clock tolerance included). */
const REVOCATION_MARGIN_MS = 60_000;

export interface TokenVerification {
  readonly tokens: TokenService;
  readonly revocations: Revocations;
}

/** `dataDir` holds the signing key made on first start when JWT_SIGNING_KEY is unset. */
export async function createTokenVerification(
  settings: TokenSettings,
  dataDir: string,
  sharedState: SharedState,
): Promise<TokenVerification> {
  const keyRing = await loadKeyRing({
    signingKey: settings.signingKey,
    signingKeyId: settings.signingKeyId,
    verificationKeysJwks: settings.verificationKeys,
    dataDir,
  });
  return {
    tokens: new TokenService({
      keyRing,
      issuer: settings.issuer,
      accessTokenTtlSeconds: ACCESS_TOKEN_TTL_SECONDS,
    }),
    revocations: new Revocations(
      sharedState,
      ACCESS_TOKEN_TTL_SECONDS * 1000 + REVOCATION_MARGIN_MS,
    ),
  };
}
