/**
 * The operator-enabled CAPTCHA gate (auth.proto, AuthService.Initialize, check 6): on every
 * RPC whose request message has a `captcha_token` field, the token must be present and
 * accepted by the provider before the handler runs. Other RPCs pass through untouched.
 *
 * - missing token: `400 CAPTCHA_REQUIRED`;
 * - token refused by the provider (or over 4096 characters): `400 CAPTCHA_REQUIRED`;
 * - provider unreachable, slow or broken: `503 CAPTCHA_UNAVAILABLE` (fails closed).
 *
 * Placed after the per-IP rate limit (a flood never reaches the provider) and before
 * authentication.
 */
import type { DescField, DescMethod } from '@bufbuild/protobuf';
import { Code } from '@connectrpc/connect';
import { apiError } from '../../platform/errors/api-error.js';
import { callInfoOf } from '../../platform/rpc/call-context.js';
import type { RpcMiddleware } from '../../platform/rpc/rpc-pipeline.js';
import { CaptchaUnavailableError } from './captcha-verifier.js';
import type { CaptchaVerifier } from './captcha-verifier.js';

export const CAPTCHA_TOKEN_FIELD = 'captcha_token';
/** The documented maximum length of `captcha_token`. */
export const MAX_CAPTCHA_TOKEN_LENGTH = 4096;

export function captchaGate(verifier: Pick<CaptchaVerifier, 'verify'>): RpcMiddleware {
  const tokenFields = new WeakMap<DescMethod, DescField | null>();
  const tokenFieldOf = (method: DescMethod): DescField | null => {
    let field = tokenFields.get(method);
    if (field === undefined) {
      field = method.input.fields.find((f) => f.name === CAPTCHA_TOKEN_FIELD) ?? null;
      tokenFields.set(method, field);
    }
    return field;
  };

  return async ({ method, request, context }, next) => {
    const field = tokenFieldOf(method);
    if (!field) return next();
    const value =
      typeof request === 'object' && request !== null
        ? (request as Record<string, unknown>)[field.localName]
        : undefined;
    const token = typeof value === 'string' ? value : '';
    if (token === '') {
      throw apiError(
        Code.InvalidArgument,
        'CAPTCHA_REQUIRED',
        'A CAPTCHA answer is required: send captcha_token',
      );
    }
    if (token.length > MAX_CAPTCHA_TOKEN_LENGTH) {
      throw apiError(
        Code.InvalidArgument,
        'CAPTCHA_REQUIRED',
        'The CAPTCHA answer was not accepted: solve the CAPTCHA again',
      );
    }
    const info = callInfoOf(context);
    let accepted: boolean;
    try {
      accepted = await verifier.verify(token, info.clientIp);
    } catch (error) {
      if (error instanceof CaptchaUnavailableError) {
        info.logger.warn(
          { provider: error.provider, reason: error.reason },
          'CAPTCHA provider unavailable',
        );
      } else {
        info.logger.error(
          { errorName: error instanceof Error ? error.name : typeof error },
          'CAPTCHA verification failed',
        );
      }
      throw apiError(
        Code.Unavailable,
        'CAPTCHA_UNAVAILABLE',
        'The CAPTCHA cannot be checked right now: try again later',
      );
    }
    if (!accepted) {
      throw apiError(
        Code.InvalidArgument,
        'CAPTCHA_REQUIRED',
        'The CAPTCHA answer was not accepted: solve the CAPTCHA again',
      );
    }
    return next();
  };
}
