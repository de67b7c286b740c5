/**
 * Server-side validation of DPoP proofs (RFC 9449 §4.3), which is how a refresh token bound to
 * a client key (its `cnf.jkt`) proves that the caller holds that key.
 *
 * Deliberately not done:
 * - server nonces (§8): not required, and a `nonce` claim is ignored. Replay is already
 *   prevented by the `jti` cache and the short `iat` window, and nonces would cost every
 *   client an extra round trip per refresh.
 * - `ath` (the access-token hash): proofs are only checked at the refresh endpoint, where no
 *   access token is presented, because access tokens are never DPoP-bound.
 */
import { createHash } from 'node:crypto';
import { EmbeddedJWK, calculateJwkThumbprint, errors, jwtVerify } from 'jose';
import type { JWK, JWTVerifyResult } from 'jose';
import type { SharedState } from '../../platform/shared-state/shared-state.js';
import { comparableHttpUri } from './http-uri.js';

export const INVALID_DPOP_PROOF = 'INVALID_DPOP_PROOF';

/**
 * Asymmetric only (RFC 9449 §4.3 step 5): with a symmetric algorithm the "public" key in the
 * proof would be the secret. `Ed25519` is RFC 9864's name for `EdDSA` over Ed25519, which
 * current clients (the `dpop` library among them) already send.
 */
export const DPOP_ALGORITHMS = ['ES256', 'EdDSA', 'Ed25519', 'RS256', 'PS256'] as const;

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export interface DpopValidatorOptions {
  /** Remembers used `jti`s, across every pod. */
  sharedState: SharedState;
  /** How far a proof's `iat` may be from server time, either way. */
  iatWindowSeconds?: number;
  now?: () => Date;
}

export interface DpopRequest {
  /** Every value of the request's `DPoP` header; undefined or empty when there is none. */
  header: string | readonly string[] | undefined;
  /** The request's method, as received. */
  method: string;
  /**
   * The absolute URI the client addressed (its scheme and host as seen by the client, not
   * those behind a proxy); query and fragment are ignored.
   */
  uri: string;
  /** The `cnf.jkt` of the bound refresh token; omit it to learn the key of a new binding. */
  expectedJkt?: string;
}

export interface ValidDpopProof {
  /** RFC 7638 SHA-256 thumbprint of the proof's key: what a bound token carries as `cnf.jkt`. */
  jkt: string;
  jti: string;
}

/** A refused proof: the client sees only the reason; `detail` is for logs. */
export class DpopProofError extends Error {
  override readonly name = 'DpopProofError';
  readonly reason = INVALID_DPOP_PROOF;

  constructor(readonly detail: string) {
    super('invalid DPoP proof');
  }
}

export class DpopValidator {
  private readonly sharedState: SharedState;
  private readonly iatWindowSeconds: number;
  private readonly now: () => Date;

  constructor(options: DpopValidatorOptions) {
    this.sharedState = options.sharedState;
    this.iatWindowSeconds = options.iatWindowSeconds ?? 60;
    this.now = options.now ?? (() => new Date());
  }

  /** Resolves when the proof is valid and its `jti` was unused; throws DpopProofError otherwise. */
  async validate(request: DpopRequest): Promise<ValidDpopProof> {
    const requestUri = comparableHttpUri(request.uri);
    if (requestUri === undefined)
      throw new TypeError('the request URI must be an absolute http(s) URI');

    const proof = singleProof(request.header);
    const { payload, protectedHeader } = await this.verifySignature(proof);
    const { jti, htm, htu } = payload;
    if (typeof jti !== 'string' || jti === '')
      throw new DpopProofError('jti is not a non-empty string');
    if (htm !== request.method) throw new DpopProofError('htm does not match the request method');
    if (typeof htu !== 'string' || comparableHttpUri(htu) !== requestUri)
      throw new DpopProofError('htu does not match the request URI');

    const jkt = await calculateJwkThumbprint(protectedHeader.jwk as JWK, 'sha256');
    if (request.expectedJkt !== undefined && jkt !== request.expectedJkt) {
      throw new DpopProofError('the proof key is not the key the token is bound to');
    }
    // Last, so that only a proof accepted in every other respect uses up its jti.
    await this.recordJti(jkt, jti);
    return { jkt, jti };
  }

  private async verifySignature(proof: string): Promise<JWTVerifyResult> {
    try {
      // EmbeddedJWK verifies with the `jwk` header and refuses a missing or private one.
      return await jwtVerify(proof, EmbeddedJWK, {
        typ: 'dpop+jwt',
        algorithms: [...DPOP_ALGORITHMS],
        requiredClaims: ['jti', 'htm', 'htu', 'iat'],
        // Together these read: |now - iat| <= window (an age of at most 0, give or take the window).
        maxTokenAge: 0,
        clockTolerance: this.iatWindowSeconds,
        currentDate: this.now(),
      });
    } catch (error) {
      if (error instanceof errors.JOSEError) throw new DpopProofError(error.message);
      throw error;
    }
  }

  private async recordJti(jkt: string, jti: string): Promise<void> {
    // Per key, so that no client's choice of jti can block another's; hashed, because a jti
    // is the client's choice and could be of any length.
    const key = `dpop-jti:${jkt}:${createHash('sha256').update(jti).digest('base64url')}`;
    // A proof is acceptable from iat - window until iat + window (plus the second that the
    // whole-second iat rounds off), so this long after its first use it can no longer be replayed.
    const ttlMs = Math.ceil((2 * this.iatWindowSeconds + 1) * 1000);
    const firstUse = await this.sharedState.set(key, '1', { ttlMs, onlyIfAbsent: true });
    if (!firstUse) throw new DpopProofError('jti already used');
  }
}

/** RFC 9449 §4.3 steps 1-2: exactly one header field, holding one compact JWS. */
function singleProof(header: DpopRequest['header']): string {
  const values = typeof header === 'string' ? [header] : (header ?? []);
  if (values.length !== 1)
    throw new DpopProofError(values.length === 0 ? 'no DPoP header' : 'more than one DPoP header');
  const [proof] = values as [string];
  // Also refuses several values folded into one line ("a, b"), as some HTTP stacks do.
  if (!COMPACT_JWS.test(proof)) throw new DpopProofError('the DPoP header is not a compact JWS');
  return proof;
}
