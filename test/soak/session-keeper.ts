/**
 * Keeps the workload's own sessions alive as a client does: an access token lives 15 minutes
 * (src/identity/tokens), and a soak runs for longer, so every session the senders, devices,
 * readers and security holds use is refreshed in place every few minutes (a device reconnecting
 * reads its session's current token). A refresh the service refused for an outage (503) is tried
 * again with the same token; one whose answer was lost, or that was refused otherwise, is not
 * (presenting a refresh token twice is a replay, which ends the family): the user signs in
 * again instead, as a client would.
 */
import { sleep } from '../support/session-api.js';
import type { SignedIn } from '../support/wallet.js';
import type { ApiEndpoint } from '../faults/support/realtime-device.js';
import type { Recorder } from './recorder.js';
import { SoakLoop } from './soak-loop.js';

/** Well inside the access token's 15 minutes, with room for a fault or two on the way. */
const REFRESH_EVERY_MS = 5 * 60_000;
const RETRY_MS = 5_000;

export class SessionKeeper extends SoakLoop {
  private readonly refreshedAt = new Map<SignedIn, number>();

  constructor(
    private readonly api: ApiEndpoint,
    private readonly recorder: Recorder,
    private readonly sessions: readonly SignedIn[],
  ) {
    super();
    for (const session of sessions) this.refreshedAt.set(session, recorder.now());
    this.start(this.run());
  }

  private async run(): Promise<void> {
    while (this.running) {
      for (const session of this.sessions) {
        if (!this.running) return;
        if (this.recorder.now() - this.refreshedAt.get(session)! < REFRESH_EVERY_MS) continue;
        if (await this.renew(session)) this.refreshedAt.set(session, this.recorder.now());
      }
      await sleep(RETRY_MS);
    }
  }

  /** True once the session holds fresh tokens. */
  private async renew(session: SignedIn): Promise<boolean> {
    const refreshed = await this.recorder.call('keep session: refresh', this.api.baseUrl, {
      path: '/api/v1/auth/refresh',
      body: { refresh_token: session.refreshToken },
    });
    if (refreshed.outcome === 200) {
      session.accessToken = refreshed.body.access_token;
      session.refreshToken = refreshed.body.refresh_token;
      return true;
    }
    if (refreshed.outcome === 503) return false;
    // The sign-in text carries a millisecond timestamp: two in one millisecond would be one signature.
    await sleep(2);
    const signedIn = await this.recorder.call('keep session: sign-in', this.api.baseUrl, {
      path: '/api/v1/initialize',
      body: await session.user.initializeBody('sign-in'),
    });
    if (signedIn.outcome !== 200) return false;
    session.accessToken = signedIn.body.access_token;
    session.refreshToken = signedIn.body.refresh_token;
    session.sessionId = signedIn.body.session_id;
    session.csrfToken = signedIn.body.csrf_token;
    return true;
  }
}
