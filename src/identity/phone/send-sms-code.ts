/**
 * PhoneAuthService.SendSmsCode: checks that `phone_hash` is the V2 hash of `phone_number`,
 * enforces the per-number limits (one SMS per 60 seconds, five per hour; the per-IP limit is the
 * RPC's own bucket), stores a new code and hands the SMS to the provider. The number lives only
 * in this request.
 */
import type { HandlerContext } from '@connectrpc/connect';
import type { SendSmsCodeRequest } from '../../gen/service/v1/phone_pb.js';
import { RateLimiter } from '../../limits/rate-limiter.js';
import { invalidArgument, rateLimited, unavailable } from '../../platform/errors/api-error.js';
import { callInfoOf } from '../../platform/rpc/call-context.js';
import { refuseWhileLocked } from '../lockout/lockout-report.js';
import { SmsUnavailableError } from '../sms/sms-provider.js';
import type { PhoneAuth } from './phone-auth.js';
import { phoneLockouts } from './phone-auth.js';
import { sameDigest } from '../secrets/same-digest.js';
import { phoneHash, requirePhoneHash, requirePhoneNumber } from './phone-hash.js';
import { SMS_CODE_LENGTH, SMS_CODE_TTL_SECONDS } from './sms-codes.js';

export const RESEND_AFTER_SECONDS = 60;
const HOURLY_SMS_PER_NUMBER = 5;

export function sendSmsCode(phone: PhoneAuth) {
  const { identity } = phone;
  const limiter = new RateLimiter(identity.sharedState);

  /** Per number, fail-closed like every authentication limit: an outage must not open an SMS flood. */
  async function limitNumber(hash: string): Promise<void> {
    if (!identity.config.rateLimitsEnabled) return;
    const subject = { key: hash, failOpen: false };
    const spacing = await limiter.consume({ ...subject, scope: 'sms_number', limit: 1, burst: 1, windowMs: RESEND_AFTER_SECONDS * 1000 });
    if (!spacing.allowed) throw rateLimited(spacing.limit, spacing.windowMs, spacing.retryAfterMs, false);
    const hourly = await limiter.consumeQuota({ ...subject, scope: 'sms_number_hour', total: HOURLY_SMS_PER_NUMBER, ttlMs: 3_600_000 });
    if (!hourly.allowed) throw rateLimited(HOURLY_SMS_PER_NUMBER, 3_600_000, 3_600_000, false);
  }

  return async (request: SendSmsCodeRequest, context: HandlerContext) => {
    const number = requirePhoneNumber(request.phoneNumber, 'phone_number');
    const hash = requirePhoneHash(request.phoneHash, 'phone_hash');
    if (!sameDigest(await phoneHash(number, identity.config.phoneHashSalt, 2), hash)) {
      throw invalidArgument('phone_hash is not the V2 hash of phone_number');
    }
    await refuseWhileLocked(identity.lockouts, await phoneLockouts(phone, hash, callInfoOf(context).clientIp));
    await limitNumber(hash);
    const code = await phone.codes.issue(hash);
    try {
      await identity.sms.send(number, `${identity.config.serviceName} code: ${code}. It expires in ${SMS_CODE_TTL_SECONDS / 60} minutes. Do not share it.`);
    } catch (error) {
      if (error instanceof SmsUnavailableError) throw unavailable('The SMS could not be sent: try again later');
      throw error;
    }
    return { success: true, message: 'Code sent', expiresIn: SMS_CODE_TTL_SECONDS, resendAfter: RESEND_AFTER_SECONDS, codeLength: SMS_CODE_LENGTH };
  };
}
