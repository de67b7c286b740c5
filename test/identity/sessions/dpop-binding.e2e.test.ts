/**
 * RFC 9449 DPoP binding of a refresh family, over real HTTP, with proofs made by the independent
 * `dpop` client library: a sign-in that carries a proof binds the family to the proof's key, and
 * every refresh of that family must then carry a fresh proof made with that key.
 */
import { generateKeyPair, generateProof } from 'dpop';
import type { KeyPair } from 'dpop';
import { expectFailure, expectOk } from '../../support/session-api.js';
import { signIn } from '../../support/wallet.js';
import type { SignedIn } from '../../support/wallet.js';
import { serviceForThisFile } from '../../support/service-for-tests.js';

let clientKey: KeyPair;
let otherKey: KeyPair;
const { service, api } = serviceForThisFile();
beforeAll(async () => {
  [clientKey, otherKey] = await Promise.all([generateKeyPair('ES256'), generateKeyPair('ES256')]);
});

const proof = (key: KeyPair, path: string) => generateProof(key, api.url(path), 'POST');
const refreshProof = (key: KeyPair) => proof(key, '/api/v1/auth/refresh');

/** Signs in with a DPoP proof of `key` for the sign-in request: the new family is bound to it. */
async function boundSignIn(key: KeyPair): Promise<SignedIn> {
  return signIn(service.baseUrl, undefined, 'register', {
    dpop: await proof(key, '/api/v1/initialize'),
  });
}

it('binds the family of a sign-in that carries a proof: a refresh without a proof is refused', async () => {
  const session = await boundSignIn(clientKey);
  expectFailure(await api.refresh(session.refreshToken), 401, 'INVALID_DPOP_PROOF');
});

it('refuses a refresh with a proof made with another key', async () => {
  const session = await boundSignIn(clientKey);
  expectFailure(
    await api.refresh(session.refreshToken, { dpop: await refreshProof(otherKey) }),
    401,
    'INVALID_DPOP_PROOF',
  );
});

it('refuses a proof of the right key made for another URL', async () => {
  const session = await boundSignIn(clientKey);
  expectFailure(
    await api.refresh(session.refreshToken, { dpop: await proof(clientKey, '/api/v1/initialize') }),
    401,
    'INVALID_DPOP_PROOF',
  );
});

it('refreshes with a valid proof, and the next refresh still needs one', async () => {
  const session = await boundSignIn(clientKey);
  const rotated = expectOk(
    await api.refresh(session.refreshToken, { dpop: await refreshProof(clientKey) }),
  );
  expectFailure(await api.refresh(rotated.refresh_token), 401, 'INVALID_DPOP_PROOF');
  expectFailure(
    await api.refresh(rotated.refresh_token, { dpop: await refreshProof(otherKey) }),
    401,
    'INVALID_DPOP_PROOF',
  );
  expectOk(await api.refresh(rotated.refresh_token, { dpop: await refreshProof(clientKey) }));
});

it('a refused proof does not use up the refresh token: the holder of the key can still refresh', async () => {
  const session = await boundSignIn(clientKey);
  expectFailure(await api.refresh(session.refreshToken), 401, 'INVALID_DPOP_PROOF');
  expectFailure(
    await api.refresh(session.refreshToken, { dpop: await refreshProof(otherKey) }),
    401,
    'INVALID_DPOP_PROOF',
  );
  expectOk(await api.refresh(session.refreshToken, { dpop: await refreshProof(clientKey) }));
});

it('refuses a replayed proof', async () => {
  const session = await boundSignIn(clientKey);
  const used = await refreshProof(clientKey);
  const rotated = expectOk(await api.refresh(session.refreshToken, { dpop: used }));
  expectFailure(
    await api.refresh(rotated.refresh_token, { dpop: used }),
    401,
    'INVALID_DPOP_PROOF',
  );
});

it('leaves a family unbound when the sign-in carries no proof', async () => {
  const session = await signIn(service.baseUrl);
  const rotated = expectOk(await api.refresh(session.refreshToken));
  expectOk(await api.refresh(rotated.refresh_token));
});
