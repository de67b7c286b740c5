/**
 * TOTP as the contract fixes it (RFC 6238: HMAC-SHA-1, 6 digits, 30-second steps), on
 * otplib. A code is accepted from the current step or one step either way (clock drift), and
 * only from a step later than the last one accepted for the account: the caller stores the
 * returned time step, so no code (and no earlier step) is ever accepted twice.
 */
import { generateSecret, generateURI, verify } from 'otplib';

export const TOTP_DIGITS = 6;
export const TOTP_PERIOD_SECONDS = 30;
/** 20 random bytes: 160 bits, RFC 4226's recommended length; 32 base32 characters. */
const SECRET_BYTES = 20;

export const TOTP_CODE = /^\d{6}$/;

export type TotpCheck =
  { valid: true; timeStep: number } | { valid: false; reason: 'invalid' | 'replayed' };

export class Totp {
  /** `now` in epoch milliseconds; injectable so that tests control the clock. */
  constructor(private readonly now: () => number = Date.now) {}

  newSecret(): string {
    return generateSecret({ length: SECRET_BYTES });
  }

  provisioningUri(issuer: string, accountName: string, secret: string): string {
    return generateURI({
      issuer,
      label: accountName,
      secret,
      algorithm: 'sha1',
      digits: TOTP_DIGITS,
      period: TOTP_PERIOD_SECONDS,
    });
  }

  /** `lastTimeStep`: the step of the last code accepted for the account (-1 when none). */
  async check(secret: string, code: string, lastTimeStep: number): Promise<TotpCheck> {
    const result = await verify({
      secret,
      token: code,
      epoch: Math.floor(this.now() / 1000),
      period: TOTP_PERIOD_SECONDS,
      digits: TOTP_DIGITS,
      algorithm: 'sha1',
      // Seconds either way: exactly one step of drift with 30-second steps.
      epochTolerance: TOTP_PERIOD_SECONDS,
    });
    if (!result.valid) return { valid: false, reason: 'invalid' };
    if (!('timeStep' in result)) throw new Error('otplib returned no time step for a TOTP code');
    return result.timeStep > lastTimeStep
      ? { valid: true, timeStep: result.timeStep }
      : { valid: false, reason: 'replayed' };
  }
}
