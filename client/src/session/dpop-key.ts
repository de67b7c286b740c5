/**
 * DPoP (RFC 9449): a key pair made in WebCrypto with a private half that cannot be exported,
 * so a script that steals the refresh token (XSS, a copied storage) cannot use it elsewhere:
 * every refresh of a bound family needs a fresh proof signed by this key. The CryptoKeyPair can
 * be kept across page loads in IndexedDB (structured clone keeps it non-extractable).
 */
import { base64url, base64urlJson } from './base64url.js';

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;

export function createDpopKey(): Promise<CryptoKeyPair> {
  return crypto.subtle.generateKey(ALGORITHM, false, ['sign', 'verify']);
}

/** A proof for one request: `htm` the method, `htu` the URL without query and fragment. */
export async function dpopProof(key: CryptoKeyPair, method: string, url: string): Promise<string> {
  const { kty, crv, x, y } = await crypto.subtle.exportKey('jwk', key.publicKey);
  const target = new URL(url);
  target.search = '';
  target.hash = '';
  const signingInput = `${base64urlJson({ typ: 'dpop+jwt', alg: 'ES256', jwk: { kty, crv, x, y } })}.${base64urlJson(
    {
      jti: crypto.randomUUID(),
      htm: method,
      htu: target.href,
      iat: Math.floor(Date.now() / 1000),
    },
  )}`;
  // WebCrypto's ECDSA signature is r ‖ s (IEEE P1363), which is exactly JWS's ES256 form.
  const signature = await crypto.subtle.sign(
    { name: 'ECDSA', hash: 'SHA-256' },
    key.privateKey,
    new TextEncoder().encode(signingInput),
  );
  return `${signingInput}.${base64url(new Uint8Array(signature))}`;
}
