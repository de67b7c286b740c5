/**
 * At most 5 concurrent sessions per account: a sixth sign-in ends the least recently active
 * session (its access and refresh tokens are refused at once), and the session list shows the
 * five that remain, the caller's own first.
 */
import {
  expectAccessAccepted,
  expectOk,
  expectSessionEnded,
  signInAgain,
} from '../../support/session-api.js';
import { serviceForThisFile } from '../../support/service-for-tests.js';
import { TestUser, signIn } from '../../support/wallet.js';
import type { SignedIn } from '../../support/wallet.js';

const running = serviceForThisFile();

async function signInTimes(user: TestUser, count: number): Promise<SignedIn[]> {
  const sessions = [await signIn(running.service.baseUrl, user)];
  while (sessions.length < count) sessions.push(await signInAgain(running.service.baseUrl, user));
  return sessions;
}

it('keeps five sessions: the sixth sign-in ends the first', async () => {
  const sessions = await signInTimes(new TestUser(), 6);
  const [first, ...kept] = sessions as [SignedIn, ...SignedIn[]];

  await expectSessionEnded(running.api, first);
  for (const session of kept) await expectAccessAccepted(running.api, session.accessToken);
});

it('evicts by true recency: the session in use right now stays, the least recently used one goes', async () => {
  const [busiest, idlest, ...others] = (await signInTimes(new TestUser(), 5)) as [
    SignedIn,
    SignedIn,
    ...SignedIn[],
  ];
  // Activity is written to the store at most once a minute: this request is not written yet.
  await expectAccessAccepted(running.api, busiest.accessToken);
  await signInAgain(running.service.baseUrl, busiest.user);

  await expectSessionEnded(running.api, idlest);
  for (const session of [busiest, ...others])
    await expectAccessAccepted(running.api, session.accessToken);
});

it('lists the five active sessions, the current one first and flagged current', async () => {
  const sessions = await signInTimes(new TestUser(), 6);
  const caller = sessions[2]!;
  const listed = expectOk(await running.api.listSessions(caller.accessToken));

  // The current one, then by last activity, most recent first (here: most recently signed in).
  const expectedOrder = [caller, sessions[5]!, sessions[4]!, sessions[3]!, sessions[1]!];
  expect(listed.sessions.map((s: { id: string; current: boolean }) => [s.id, s.current])).toEqual(
    expectedOrder.map((s) => [s.sessionId, s === caller]),
  );
  expect(listed.sessions[0]).toEqual({
    id: caller.sessionId,
    device_name: expect.any(String),
    user_agent: expect.any(String),
    ip: expect.any(String),
    created_at: expect.any(String),
    last_active_at: expect.any(String),
    expires_at: expect.any(String),
    current: true,
    auth_method: 'wallet',
  });
  expect(listed.next_cursor ?? '').toBe('');
});

it('counts per account: another account signing in ends none of them', async () => {
  const sessions = await signInTimes(new TestUser(), 5);
  await signIn(running.service.baseUrl);
  for (const session of sessions) await expectAccessAccepted(running.api, session.accessToken);
});
