/**
 * Helpers of the MFA tests: an authenticator app built on `otpauth` (independent of the
 * service's otplib), and MFA set up for a signed-in user over REST.
 */
import * as OTPAuth from 'otpauth';
import type { Api } from '../support/session-api.js';
import { expectOk, sleep } from '../support/session-api.js';
import type { SignedIn } from '../support/wallet.js';
import { bearer } from '../support/wallet.js';

const PERIOD_MS = 30_000;
const stepOf = (timestampMs: number) => Math.floor(timestampMs / PERIOD_MS);

/** The user's authenticator app. The service accepts each time step once, so it hands out each step once. */
export class Authenticator {
  private lastStep = -1;
  private readonly totp: OTPAuth.TOTP;

  constructor(readonly secret: string) {
    this.totp = new OTPAuth.TOTP({
      secret: OTPAuth.Secret.fromBase32(secret),
      algorithm: 'SHA1',
      digits: 6,
      period: 30,
    });
  }

  /** The code of the time step `offset` steps from now (drift tests). */
  codeAt(offset: number): string {
    return this.totp.generate({ timestamp: Date.now() + offset * PERIOD_MS });
  }

  /**
   * A code the service has not accepted yet: the current step, else the next one (one step of
   * drift is accepted), else it waits for the clock.
   */
  async nextCode(): Promise<string> {
    let step = Math.max(this.lastStep + 1, stepOf(Date.now()));
    while (step > stepOf(Date.now()) + 1) await sleep(500);
    // The next step is valid only while it is at most one step ahead: never at its very start.
    step = Math.max(step, stepOf(Date.now()));
    this.lastStep = step;
    return this.totp.generate({ timestamp: step * PERIOD_MS });
  }
}

export interface MfaUser {
  session: SignedIn;
  app: Authenticator;
  backupCodes: string[];
}

/** Sets MFA up for the signed-in user: setup, then enable with a code from the app. */
export async function enableMfa(api: Api, session: SignedIn): Promise<MfaUser> {
  const setup = expectOk(await api.post('/api/v1/mfa/totp/setup', {}, bearer(session)));
  const app = new Authenticator(setup.secret);
  const enabled = expectOk(
    await api.post('/api/v1/mfa/totp/enable', { code: await app.nextCode() }, bearer(session)),
  );
  return { session, app, backupCodes: enabled.backup_codes };
}

export const mfaBearer = (mfaToken: string) => ({ authorization: `Bearer ${mfaToken}` });

/** Creates a challenge with `headers` (the mfa_token or an access token) and answers it with `answer`. */
export async function challengeAndVerify(
  api: Api,
  headers: Record<string, string>,
  answer: Record<string, unknown>,
) {
  const challenge = expectOk(await api.post('/api/v1/mfa/challenge', {}, headers));
  return api.post(
    '/api/v1/mfa/verify',
    { challenge_id: challenge.challenge_id, ...answer },
    headers,
  );
}
