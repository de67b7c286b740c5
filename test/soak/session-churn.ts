/**
 * Sign-ins, refreshes, logouts and sessions ended from another device, by a few users, one
 * step at a time. Every step the service confirmed becomes a security hold (security-holds.ts):
 * a logout or an ended session, a used refresh token, a spent sign-in signature. A step whose
 * answer was lost in a fault proves nothing either way; its session is set aside (a client
 * would sign in again) rather than retried, since presenting a refresh token twice is a replay.
 */
import { sleep } from '../support/session-api.js';
import { TestUser } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import type { ApiEndpoint } from '../faults/support/realtime-device.js';
import type { Recorder } from './recorder.js';
import type { SeededRandom } from './seeded-random.js';
import { endedSession, spentSignature, usedRefreshToken } from './security-holds.js';
import type { SecurityHold } from './security-holds.js';
import { SoakLoop } from './soak-loop.js';

const PACE_MS = [300, 900] as const;
/** Sessions a churning user keeps at most (each sign-in adds one). */
const MAX_SESSIONS = 4;

export class SessionChurn extends SoakLoop {
  constructor(
    private readonly api: ApiEndpoint,
    private readonly recorder: Recorder,
    users: readonly TestUser[],
    private readonly holds: SecurityHold[],
    private readonly random: SeededRandom,
  ) {
    super();
    this.start(this.run(users.map((user) => ({ user, sessions: [] as SignedIn[] }))));
  }

  private async run(users: { user: TestUser; sessions: SignedIn[] }[]): Promise<void> {
    while (this.running) {
      const { user, sessions } = this.random.pick(users);
      const step =
        sessions.length === 0
          ? 'sign-in'
          : this.random.pick(
              sessions.length >= MAX_SESSIONS
                ? (['refresh', 'logout', 'end session'] as const)
                : (['sign-in', 'refresh', 'logout', 'end session'] as const),
            );
      await this[step === 'end session' ? 'endSession' : step === 'sign-in' ? 'signIn' : step](
        user,
        sessions,
      );
      await sleep(this.random.between(...PACE_MS));
    }
  }

  private async signIn(user: TestUser, sessions: SignedIn[]): Promise<void> {
    // The sign-in text carries a millisecond timestamp: two in one millisecond would be one signature.
    await sleep(2);
    const body = await user.initializeBody('sign-in');
    const answer = await this.recorder.call('sign-in', this.api.baseUrl, {
      path: '/api/v1/initialize',
      body,
    });
    if (answer.outcome !== 200) return;
    this.holds.push(spentSignature(body, this.recorder.now()));
    sessions.push({
      user,
      accessToken: answer.body.access_token,
      refreshToken: answer.body.refresh_token,
      sessionId: answer.body.session_id,
      cookies: {},
      csrfToken: answer.body.csrf_token,
    });
  }

  private async refresh(_user: TestUser, sessions: SignedIn[]): Promise<void> {
    const session = sessions.shift()!;
    const answer = await this.recorder.call('refresh', this.api.baseUrl, {
      path: '/api/v1/auth/refresh',
      body: { refresh_token: session.refreshToken },
    });
    if (answer.outcome === 503) return void sessions.push(session);
    if (answer.outcome !== 200) return;
    this.holds.push(usedRefreshToken(session.refreshToken, this.recorder.now()));
    sessions.push({
      ...session,
      accessToken: answer.body.access_token,
      refreshToken: answer.body.refresh_token,
    });
  }

  private async logout(_user: TestUser, sessions: SignedIn[]): Promise<void> {
    const session = sessions.shift()!;
    const answer = await this.recorder.call('logout', this.api.baseUrl, {
      path: '/api/v1/logout',
      body: {},
      session,
    });
    if (answer.outcome === 200) this.holds.push(endedSession(session, this.recorder.now()));
    else if (answer.outcome === 503) sessions.push(session);
  }

  /** One session of the user ends another (DELETE /api/v1/auth/sessions/{id}). */
  private async endSession(user: TestUser, sessions: SignedIn[]): Promise<void> {
    if (sessions.length < 2) return this.signIn(user, sessions);
    const [actor, ended] = [sessions[0]!, sessions.splice(1, 1)[0]!];
    const answer = await this.recorder.call('end session', this.api.baseUrl, {
      method: 'DELETE',
      path: `/api/v1/auth/sessions/${ended.sessionId}`,
      session: actor,
    });
    if (answer.outcome === 200) this.holds.push(endedSession(ended, this.recorder.now()));
    else if (answer.outcome === 503) sessions.push(ended);
  }
}
