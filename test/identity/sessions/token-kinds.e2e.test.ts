/**
 * Access and refresh tokens are not interchangeable: a refresh token is never a Bearer token,
 * an access token is not exchanged at the refresh endpoint, and the refresh endpoint requires
 * its token.
 */
import { expectAccessAccepted, expectFailure, expectOk } from '../../support/session-api.js';
import { signIn } from '../../support/wallet.js';
import type { SignedIn } from '../../support/wallet.js';
import { serviceForThisFile } from '../../support/service-for-tests.js';

let session: SignedIn;
const { service, api } = serviceForThisFile();
beforeAll(async () => {
  session = await signIn(service.baseUrl);
});

it('refuses a refresh token used as a Bearer token with 401', async () => {
  expectFailure(await api.listSessions(session.refreshToken), 401, 'UNAUTHORIZED');
  expectFailure(
    await api.post(
      '/api/v1/auth/ws-ticket',
      {},
      { authorization: `Bearer ${session.refreshToken}` },
    ),
    401,
    'UNAUTHORIZED',
  );
});

it('refuses an access token posted as refresh_token with 401, and does not end the session', async () => {
  expectFailure(await api.refresh(session.accessToken), 401, 'UNAUTHORIZED');
  await expectAccessAccepted(api, session.accessToken);
});

it('refuses a refresh without refresh_token with 400', async () => {
  expectFailure(await api.post('/api/v1/auth/refresh', {}), 400, 'INVALID_ARGUMENT');
  expectFailure(await api.refresh(''), 400, 'INVALID_ARGUMENT');
});

it('refuses a malformed refresh token with 401', async () => {
  expectFailure(await api.refresh('not-a-jwt'), 401, 'UNAUTHORIZED');
});

it('still exchanges the genuine refresh token after all of that', async () => {
  expectOk(await api.refresh(session.refreshToken));
});
