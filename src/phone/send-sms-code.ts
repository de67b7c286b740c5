/**
 * PhoneAuthService.SendSmsCode: checks that `phone_hash` is the V2 hash of `phone_number`,
 * enforces the per-number limits (one SMS per 60 seconds, five per hour; the per-IP limit is the
 * RPC's own bucket), stores a new code and hands the SMS to the provider. The number lives only
 * in this request.
 */
import type { HandlerContext } from '@connectrpc/connect';
import type { SendSmsCodeRequest } from '../gen/service/v1/phone_pb.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import { invalidArgument, rateLimited, unavailable } from '../platform/errors/api-error.js';
import { callInfoOf } from '../platform/rpc/call-context.js';
import { refuseWhileLocked } from '../identity/lockout/lockout-report.js';
import type { Lockouts } from '../identity/lockout/lockouts.js';
import { sameDigest } from '../platform/secrets/same-digest.js';
import { SmsUnavailableError } from './sms/sms-provider.js';
import type { SmsProvider } from './sms/sms-provider.js';
import type { PhoneAccounts } from './phone-accounts.js';
import { phoneHash, requirePhoneHash, requirePhoneNumber } from './phone-hash.js';
import { phoneLockouts } from './phone-lockouts.js';
import { SMS_CODE_LENGTH, SMS_CODE_TTL_SECONDS } from './sms-codes.js';
import type { SmsCodes } from './sms-codes.js';

export const RESEND_AFTER_SECONDS = 60;
const HOURLY_SMS_PER_NUMBER = 5;

export interface SendSmsCodeDependencies {
  /** SERVICE_NAME, which the SMS text names. */
  readonly serviceName: string;
  /** PHONE_HASH_SALT. */
  readonly phoneHashSalt: string;
  readonly phoneAccounts: PhoneAccounts;
  readonly codes: SmsCodes;
  readonly sms: SmsProvider;
  readonly lockouts: Lockouts;
  /** The per-number SMS limits; undefined when the abuse controls are off (RATE_LIMITS_ENABLED=false). */
  readonly numberLimiter: RateLimiter | undefined;
}

export function sendSmsCode(deps: SendSmsCodeDependencies) {
  /** Per number, fail-closed like every authentication limit: an outage must not open an SMS flood. */
  async function limitNumber(hash: string): Promise<void> {
    const limiter = deps.numberLimiter;
    if (!limiter) return;
    const subject = { key: hash, failOpen: false };
    const spacing = await limiter.consume({
      ...subject,
      scope: 'sms_number',
      limit: 1,
      burst: 1,
      windowMs: RESEND_AFTER_SECONDS * 1000,
    });
    if (!spacing.allowed)
      throw rateLimited(spacing.limit, spacing.windowMs, spacing.retryAfterMs, false);
    const hourly = await limiter.consumeQuota({
      ...subject,
      scope: 'sms_number_hour',
      total: HOURLY_SMS_PER_NUMBER,
      ttlMs: 3_600_000,
    });
    if (!hourly.allowed) throw rateLimited(HOURLY_SMS_PER_NUMBER, 3_600_000, 3_600_000, false);
  }

  return async (request: SendSmsCodeRequest, context: HandlerContext) => {
    const number = requirePhoneNumber(request.phoneNumber, 'phone_number');
    const hash = requirePhoneHash(request.phoneHash, 'phone_hash');
    if (!sameDigest(await phoneHash(number, deps.phoneHashSalt, 2), hash)) {
      throw invalidArgument('phone_hash is not the V2 hash of phone_number');
    }
    await refuseWhileLocked(
      deps.lockouts,
      await phoneLockouts(deps.phoneAccounts, hash, callInfoOf(context).clientIp),
    );
    await limitNumber(hash);
    const code = await deps.codes.issue(hash);
    try {
      await deps.sms.send(
        number,
        `${deps.serviceName} code: ${code}. It expires in ${SMS_CODE_TTL_SECONDS / 60} minutes. Do not share it.`,
      );
    } catch (error) {
      if (error instanceof SmsUnavailableError)
        throw unavailable('The SMS could not be sent: try again later');
      throw error;
    }
    return {
      success: true,
      message: 'Code sent',
      expiresIn: SMS_CODE_TTL_SECONDS,
      resendAfter: RESEND_AFTER_SECONDS,
      codeLength: SMS_CODE_LENGTH,
    };
  };
}
