/**
 * The abuse controls of a process (spec, "Limits"): the RPC pipeline's token buckets and
 * CAPTCHA gate, the per-IP limit of the operational paths, and the WebSocket frame limits.
 * With RATE_LIMITS_ENABLED=false only the CAPTCHA gate (when configured) stays.
 */
import type { Registry } from 'prom-client';
import type { CaptchaSettings, LimitSettings } from '../platform/config/settings.js';
import type { RpcMiddleware } from '../platform/rpc/rpc-pipeline.js';
import type { SharedState } from '../platform/shared-state/shared-state.js';
import { captchaGate } from './captcha/captcha-gate.js';
import { createCaptchaVerifier } from './captcha/captcha-verifier.js';
import { createLimitMetrics } from './limit-metrics.js';
import { limitByCaller, limitByIp, opsIpLimit } from './rate-limit-middleware.js';
import type { CallerAddressOf } from './rate-limit-middleware.js';
import { RateLimiter } from './rate-limiter.js';
import { UNLIMITED_WS_FRAMES, WsLimits } from './ws-limits.js';
import type { WsFrameLimits } from './ws-limits.js';

export interface LimitsDependencies {
  readonly settings: LimitSettings;
  readonly captcha: CaptchaSettings;
  readonly sharedState: SharedState;
  readonly registry: Registry;
  readonly callerAddressOf: CallerAddressOf;
}

export interface LimitsArea {
  /** Before authentication: the per-IP bucket (a flood is cut before any token is verified), then the CAPTCHA gate. */
  readonly beforeAuthentication: readonly RpcMiddleware[];
  /** After authentication: the per-user, per-endpoint and authentication-attempt buckets. */
  readonly afterAuthentication: readonly RpcMiddleware[];
  /** The per-IP limit of /health, /metrics and /swagger/: the error to render, or undefined. */
  readonly opsIpLimit: ((clientIp: string) => Promise<unknown>) | undefined;
  readonly wsFrameLimits: WsFrameLimits;
  /**
   * For the per-number SMS limits (identity's SendSmsCode). A limiter of its own, whose
   * decisions are not in `rate_limit_decisions_total`, as they never were.
   */
  readonly smsNumberLimiter: RateLimiter | undefined;
}

export function createLimitsArea(deps: LimitsDependencies): LimitsArea {
  const { settings, sharedState } = deps;
  const metrics = createLimitMetrics(deps.registry);
  const limiter = new RateLimiter(sharedState, {
    onDecision: (scope, outcome) => metrics.rateLimitDecisions.inc({ scope, outcome }),
  });
  const { provider, secret, verifyUrl } = deps.captcha;
  const captcha =
    provider === 'off'
      ? []
      : [captchaGate(createCaptchaVerifier({ provider, secret: secret ?? '', verifyUrl }))];
  if (!settings.enabled) {
    return {
      beforeAuthentication: captcha,
      afterAuthentication: [],
      opsIpLimit: undefined,
      wsFrameLimits: UNLIMITED_WS_FRAMES,
      smsNumberLimiter: undefined,
    };
  }
  return {
    beforeAuthentication: [limitByIp(limiter, metrics, settings.overrides), ...captcha],
    afterAuthentication: [
      limitByCaller(limiter, metrics, settings.overrides, deps.callerAddressOf),
    ],
    opsIpLimit: opsIpLimit(limiter, metrics, settings.overrides),
    wsFrameLimits: new WsLimits(limiter, {
      messages: { limit: settings.wsFramesPerMinute, burst: settings.wsFrameBurst },
    }),
    smsNumberLimiter: new RateLimiter(sharedState),
  };
}
