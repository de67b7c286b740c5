/**
 * Issues and verifies the service's three JWTs: the access token (Bearer, 15 minutes), the
 * refresh token (exchanged at /auth/refresh, 7 days) and the MFA-pending token (the
 * `mfa_token` of a sign-in waiting for its MFA step, 5 minutes).
 *
 * All three are signed by the same key ring, so a signature alone cannot tell them apart.
 * Each kind therefore differs in three places, all checked: the `typ` header (RFC 8725 §3.11
 * explicit typing; `at+jwt` is RFC 9068's), the audience, and the `token_use` claim. A token
 * of one kind can never pass as another, whichever check a future change might loosen.
 *
 * Only the cryptographic layer lives here: whether a session, family or token has been
 * revoked or used is decided by the callers, on the claims returned.
 */
import { randomUUID } from 'node:crypto';
import { SignJWT, errors, jwtVerify } from 'jose';
import type { JWTPayload } from 'jose';
import { SIGNING_ALGORITHMS } from './key-ring.js';
import type { KeyRing } from './key-ring.js';
import { VerifiedTokens } from './verified-tokens.js';

export const DEFAULT_ISSUER = 'messaging-service';

/** Lifetime of the MFA-pending token unless configured otherwise. */
export const DEFAULT_MFA_TOKEN_TTL_SECONDS = 5 * 60;

/** What completing the MFA step of an MFA-pending token leads to (the only use so far). */
export const MFA_PURPOSE_SIGN_IN = 'sign_in';

const KINDS = {
  access: { typ: 'at+jwt', audience: 'messaging-api', tokenUse: 'access' },
  refresh: { typ: 'refresh+jwt', audience: 'messaging-token-refresh', tokenUse: 'refresh' },
  mfa: { typ: 'mfa+jwt', audience: 'messaging-mfa', tokenUse: 'mfa_pending' },
} as const;
type TokenKind = keyof typeof KINDS;

export interface TokenServiceOptions {
  keyRing: KeyRing;
  /** `iss` of issued tokens, and the only issuer accepted. */
  issuer?: string;
  accessTokenTtlSeconds?: number;
  refreshTokenTtlSeconds?: number;
  mfaTokenTtlSeconds?: number;
  /** Accepted clock skew between the issuing and the verifying pod. */
  clockToleranceSeconds?: number;
  now?: () => Date;
}

export interface IssuedToken {
  token: string;
  jti: string;
  issuedAt: Date;
  expiresAt: Date;
}

interface RegisteredClaims {
  /** The account's wallet address, lowercase. */
  sub: string;
  jti: string;
  iss: string;
  /** Seconds since the epoch, as in the token. */
  iat: number;
  exp: number;
}

export interface AccessTokenClaims extends RegisteredClaims {
  /** The session. */
  sid: string;
}

export interface RefreshTokenClaims extends RegisteredClaims {
  sid: string;
  /** The refresh-token family: every token rotated from the same sign-in. */
  fam: string;
  /** RFC 7638 thumbprint of the DPoP key the token is bound to (the `cnf.jkt` claim), if bound. */
  jkt?: string;
}

export interface MfaTokenClaims extends RegisteredClaims {
  purpose: typeof MFA_PURPOSE_SIGN_IN;
}

export type TokenFailure = 'expired' | 'invalid';

/**
 * A refused token. `failure` is all a client may learn (`expired` → `TOKEN_EXPIRED`,
 * `invalid` → `UNAUTHORIZED`); `detail` says why, for logs only.
 */
export class TokenVerificationError extends Error {
  override readonly name = 'TokenVerificationError';

  constructor(
    readonly failure: TokenFailure,
    readonly detail: string,
  ) {
    super(failure === 'expired' ? 'token expired' : 'invalid token');
  }
}

export class TokenService {
  private readonly keyRing: KeyRing;
  private readonly issuer: string;
  private readonly ttlSeconds: Readonly<Record<TokenKind, number>>;
  private readonly clockToleranceSeconds: number;
  private readonly now: () => Date;
  private readonly verifiedAccessTokens: VerifiedTokens<AccessTokenClaims>;

  constructor(options: TokenServiceOptions) {
    this.keyRing = options.keyRing;
    this.issuer = options.issuer ?? DEFAULT_ISSUER;
    this.ttlSeconds = {
      access: options.accessTokenTtlSeconds ?? 15 * 60,
      refresh: options.refreshTokenTtlSeconds ?? 7 * 24 * 3600,
      mfa: options.mfaTokenTtlSeconds ?? DEFAULT_MFA_TOKEN_TTL_SECONDS,
    };
    this.clockToleranceSeconds = options.clockToleranceSeconds ?? 30;
    this.now = options.now ?? (() => new Date());
    this.verifiedAccessTokens = new VerifiedTokens(this.clockToleranceSeconds);
  }

  issueAccessToken(subject: { sub: string; sid: string }): Promise<IssuedToken> {
    return this.issue('access', subject.sub, { sid: subject.sid });
  }

  /** With `jkt`, the token is bound to that DPoP key (RFC 9449 §6.1 `cnf`). */
  issueRefreshToken(subject: {
    sub: string;
    sid: string;
    fam: string;
    jkt?: string;
  }): Promise<IssuedToken> {
    const binding = subject.jkt === undefined ? {} : { cnf: { jkt: subject.jkt } };
    return this.issue('refresh', subject.sub, { sid: subject.sid, fam: subject.fam, ...binding });
  }

  issueMfaToken(subject: { sub: string }): Promise<IssuedToken> {
    return this.issue('mfa', subject.sub, { purpose: MFA_PURPOSE_SIGN_IN });
  }

  /** Says nothing of the session: callers check it is live (verified-tokens.ts). */
  async verifyAccessToken(token: string): Promise<AccessTokenClaims> {
    const remembered = this.verifiedAccessTokens.get(token, this.now());
    if (remembered) return { ...remembered };
    const payload = await this.verify('access', token, ['sid']);
    const claims = { ...registeredClaims(payload), sid: stringClaim(payload, 'sid') };
    this.verifiedAccessTokens.remember(token, claims);
    return { ...claims };
  }

  async verifyRefreshToken(token: string): Promise<RefreshTokenClaims> {
    const payload = await this.verify('refresh', token, ['sid', 'fam']);
    const claims: RefreshTokenClaims = {
      ...registeredClaims(payload),
      sid: stringClaim(payload, 'sid'),
      fam: stringClaim(payload, 'fam'),
    };
    const { cnf } = payload;
    if (cnf !== undefined)
      claims.jkt = stringClaim(
        typeof cnf === 'object' && cnf !== null ? (cnf as JWTPayload) : {},
        'jkt',
      );
    return claims;
  }

  async verifyMfaToken(token: string): Promise<MfaTokenClaims> {
    const payload = await this.verify('mfa', token, ['purpose']);
    if (payload.purpose !== MFA_PURPOSE_SIGN_IN)
      throw new TokenVerificationError('invalid', 'unexpected purpose');
    return { ...registeredClaims(payload), purpose: MFA_PURPOSE_SIGN_IN };
  }

  private async issue(kind: TokenKind, sub: string, claims: JWTPayload): Promise<IssuedToken> {
    const { typ, audience, tokenUse } = KINDS[kind];
    const { kid, alg, privateKey } = this.keyRing.signingKey;
    const jti = randomUUID();
    const iat = Math.floor(this.now().getTime() / 1000);
    const exp = iat + this.ttlSeconds[kind];
    const token = await new SignJWT({ ...claims, token_use: tokenUse })
      .setProtectedHeader({ alg, kid, typ })
      .setIssuer(this.issuer)
      .setAudience(audience)
      // Wallet addresses are case-insensitive; one spelling keeps `sub` comparable as a string.
      .setSubject(sub.toLowerCase())
      .setJti(jti)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(privateKey);
    return { token, jti, issuedAt: new Date(iat * 1000), expiresAt: new Date(exp * 1000) };
  }

  private async verify(
    kind: TokenKind,
    token: string,
    kindClaims: readonly string[],
  ): Promise<JWTPayload> {
    const { typ, audience, tokenUse } = KINDS[kind];
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.keyRing.verificationKey, {
        algorithms: [...SIGNING_ALGORITHMS],
        typ,
        issuer: this.issuer,
        audience,
        clockTolerance: this.clockToleranceSeconds,
        // Also makes `iat` required, and refuses one in the future.
        maxTokenAge: this.ttlSeconds[kind],
        requiredClaims: ['sub', 'jti', 'exp', 'token_use', ...kindClaims],
        currentDate: this.now(),
      }));
    } catch (error) {
      // jose validates the signature before any claim, so "expired" is only ever said of a
      // genuine token; everything else is one undifferentiated "invalid" to the client.
      if (error instanceof errors.JWTExpired)
        throw new TokenVerificationError('expired', error.message);
      if (error instanceof errors.JOSEError)
        throw new TokenVerificationError('invalid', error.message);
      throw error;
    }
    if (payload.token_use !== tokenUse)
      throw new TokenVerificationError('invalid', 'unexpected token_use');
    return payload;
  }
}

function registeredClaims(payload: JWTPayload): RegisteredClaims {
  return {
    sub: stringClaim(payload, 'sub'),
    jti: stringClaim(payload, 'jti'),
    iss: stringClaim(payload, 'iss'),
    iat: payload.iat as number,
    exp: payload.exp as number,
  };
}

/** Only a token our keys signed gets here, so this fails only on a bug; it keeps the returned types true. */
function stringClaim(payload: JWTPayload, name: string): string {
  const value = payload[name];
  if (typeof value !== 'string' || value === '')
    throw new TokenVerificationError('invalid', `claim ${name} is not a non-empty string`);
  return value;
}
