/**
 * The keys that sign and verify the service's tokens, each named by a key id (`kid`).
 *
 * One private key signs; its public half and any number of older public keys verify. Rotation
 * is therefore: configure a new signing key and list the previous one's public JWK among the
 * verification keys until the last token it signed has expired (7 days, the refresh-token
 * lifetime), then drop it.
 *
 * Ed25519 (JWS `EdDSA`) is the default: 32-byte keys and 64-byte signatures keep tokens short,
 * signing and verifying are among the fastest of the JWS algorithms, and signatures are
 * deterministic, so no per-signature randomness can weaken the key (as a bad nonce does to
 * ECDSA). ES256 (P-256) is accepted for deployments whose key management or consumers
 * require it. `EdDSA` rather than RFC 9864's newer `Ed25519` identifier: the older name is
 * the one other services' JOSE libraries widely accept today.
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import type { JsonWebKey, KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, createLocalJWKSet, errors, importJWK } from 'jose';
import type { CryptoKey, JSONWebKeySet, JWK, JWTVerifyGetKey } from 'jose';
import { readOrCreateEmbeddedSigningKey } from './embedded-signing-key.js';

export const SIGNING_ALGORITHMS = ['EdDSA', 'ES256'] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

/** What the key ring is loaded from; environment variables are mapped onto it elsewhere. */
export interface KeyRingConfig {
  /**
   * The signing key: a private key as PEM (PKCS#8, or SEC1 for P-256) or as a JWK in JSON,
   * Ed25519 or P-256. Without it the embedded key in `<dataDir>/keys/` is used (one node only).
   */
  signingKey?: string;
  /** The signing key's kid; default: its JWK's `kid`, else its RFC 7638 thumbprint. */
  signingKeyId?: string;
  /** Former signing keys, still verifying: a JWKS in JSON of public keys, each with a `kid`. */
  verificationKeysJwks?: string;
  dataDir: string;
}

export interface SigningKey {
  readonly kid: string;
  readonly alg: SigningAlgorithm;
  readonly privateKey: CryptoKey;
}

export interface KeyRing {
  readonly signingKey: SigningKey;
  /** The public half of every verification key, signing key first: what a JWKS endpoint serves. */
  publicJwks(): JSONWebKeySet;
  /** For jose's jwtVerify: the verification key named by the token's `kid`, for its `alg` only. */
  readonly verificationKey: JWTVerifyGetKey;
}

export async function loadKeyRing(config: KeyRingConfig): Promise<KeyRing> {
  const signingKeyText =
    config.signingKey ?? (await readOrCreateEmbeddedSigningKey(config.dataDir));
  const { signingKey, publicJwk } = await parseSigningKey(signingKeyText, config.signingKeyId);
  const verificationJwks =
    config.verificationKeysJwks === undefined
      ? []
      : parseVerificationKeys(config.verificationKeysJwks);
  const jwks: JSONWebKeySet = { keys: [publicJwk, ...verificationJwks] };
  assertUniqueKids(jwks.keys);
  const localSet = createLocalJWKSet(jwks);
  return {
    signingKey,
    publicJwks: () => localSet.jwks(),
    verificationKey: (header, token) => {
      // Without a kid jose would try every key of the right type; every token of ours names its key.
      if (typeof header.kid !== 'string')
        throw new errors.JWSInvalid('the token names no key (kid)');
      return localSet(header, token);
    },
  };
}

async function parseSigningKey(
  text: string,
  configuredKid: string | undefined,
): Promise<{ signingKey: SigningKey; publicJwk: JWK }> {
  let keyObject: KeyObject;
  let declared: JWK = {};
  if (text.trimStart().startsWith('{')) {
    declared = parseJson(text, 'the signing key') as JWK;
    keyObject = createPrivateKey({ key: declared as JsonWebKey, format: 'jwk' });
  } else {
    keyObject = createPrivateKey(text);
  }
  const publicPart = createPublicKey(keyObject).export({ format: 'jwk' }) as JWK;
  const alg = algorithmOf(publicPart, declared.alg, 'the signing key');
  const kid = configuredKid ?? declared.kid ?? (await calculateJwkThumbprint(publicPart));
  const privateKey = await importJWK(keyObject.export({ format: 'jwk' }) as JWK, alg);
  return {
    signingKey: { kid, alg, privateKey: privateKey as CryptoKey },
    publicJwk: publishable(publicPart, kid, alg),
  };
}

function parseVerificationKeys(text: string): JWK[] {
  const parsed = parseJson(text, 'the verification keys');
  const keys = isObject(parsed) ? parsed.keys : undefined;
  if (!Array.isArray(keys))
    throw new Error('the verification keys must be a JWKS: {"keys": [...]}');
  return keys.map((member: unknown, index) => {
    const label = `verification key #${index}`;
    if (!isObject(member)) throw new Error(`${label} is not a JWK object`);
    const jwk = member as JWK;
    if (typeof jwk.kid !== 'string' || jwk.kid === '') throw new Error(`${label} has no kid`);
    // Everything listed here is published: a private key must never get this far.
    if (jwk.d !== undefined)
      throw new Error(`${label} (${jwk.kid}) is a private key; list only its public part`);
    const publicPart = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' }).export({
      format: 'jwk',
    }) as JWK;
    return publishable(publicPart, jwk.kid, algorithmOf(publicPart, jwk.alg, label));
  });
}

/** Only the public members (Node's export), labelled so a key verifies for its own alg only. */
function publishable(publicPart: JWK, kid: string, alg: SigningAlgorithm): JWK {
  return { ...publicPart, kid, alg, use: 'sig' };
}

function algorithmOf(jwk: JWK, declaredAlg: string | undefined, label: string): SigningAlgorithm {
  const alg =
    jwk.kty === 'OKP' && jwk.crv === 'Ed25519'
      ? 'EdDSA'
      : jwk.kty === 'EC' && jwk.crv === 'P-256'
        ? 'ES256'
        : undefined;
  if (alg === undefined)
    throw new Error(
      `${label} must be an Ed25519 or P-256 key, not ${jwk.kty} ${jwk.crv ?? ''}`.trimEnd(),
    );
  if (declaredAlg !== undefined && declaredAlg !== alg)
    throw new Error(`${label} declares alg ${declaredAlg}, but its key is for ${alg}`);
  return alg;
}

function assertUniqueKids(keys: readonly JWK[]): void {
  const seen = new Set<string>();
  for (const { kid } of keys) {
    if (seen.has(kid as string)) throw new Error(`two keys of the key ring share the kid ${kid}`);
    seen.add(kid as string);
  }
}

function parseJson(text: string, label: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // The parser's message may quote the text, which may be a private key.
    throw new Error(`${label} is not valid JSON`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
