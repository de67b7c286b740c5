/**
 * The optional idle timeout (SERVICE_SESSION_IDLE_TIMEOUT, here 2 s): a session that saw no
 * request for that long has ended, one that keeps being used stays valid, however the
 * requests fall relative to each other.
 */
import {
  cookieAuth,
  expectAccessAccepted,
  expectFailure,
  expectOk,
  sessionCookies,
  sleep,
} from '../../support/session-api.js';
import { signIn } from '../../support/wallet.js';
import type { SignedIn } from '../../support/wallet.js';
import { serviceForThisFile } from '../../support/service-for-tests.js';

const { service, api } = serviceForThisFile({ SERVICE_SESSION_IDLE_TIMEOUT: '2s' });

const me = (session: SignedIn) =>
  api.get('/api/v1/session/me', cookieAuth(sessionCookies(session)));

it('ends a session left unused for 3 s: its access and refresh tokens are refused', async () => {
  const session = await signIn(service.baseUrl);
  await sleep(3000);
  expectFailure(await api.listSessions(session.accessToken), 401, 'UNAUTHORIZED');
  expectFailure(await api.refresh(session.refreshToken), 401, 'UNAUTHORIZED');
});

it('ends a session used once and then left unused for 3 s', async () => {
  const session = await signIn(service.baseUrl);
  await sleep(600);
  await expectAccessAccepted(api, session.accessToken);
  await sleep(3000);
  expectFailure(await api.listSessions(session.accessToken), 401, 'UNAUTHORIZED');
});

it('ends an idle cookie session too', async () => {
  const session = await signIn(service.baseUrl);
  await sleep(3000);
  expectFailure(await me(session), 401, 'UNAUTHORIZED');
});

it('keeps a session used every second valid', async () => {
  const session = await signIn(service.baseUrl);
  for (let second = 0; second < 5; second++) {
    await sleep(1000);
    await expectAccessAccepted(api, session.accessToken);
  }
  expectOk(await api.refresh(session.refreshToken));
});

it('keeps a session valid whenever no gap between its requests reaches the timeout', async () => {
  const session = await signIn(service.baseUrl);
  // Gaps of 0.6 s then 1.5 s: never 2 s without a request, though 2.1 s pass between the
  // sign-in and the third request.
  for (const gap of [600, 1500, 600, 1500]) {
    await sleep(gap);
    await expectAccessAccepted(api, session.accessToken);
  }
});

it('keeps a cookie session valid whenever no gap between its requests reaches the timeout', async () => {
  const session = await signIn(service.baseUrl);
  for (const gap of [600, 1500, 600, 1500]) {
    await sleep(gap);
    expectOk(await me(session));
  }
});

it('counts a refresh as activity', async () => {
  const session = await signIn(service.baseUrl);
  await sleep(1500);
  const rotated = expectOk(await api.refresh(session.refreshToken));
  await sleep(1500);
  await expectAccessAccepted(api, rotated.access_token);
});
