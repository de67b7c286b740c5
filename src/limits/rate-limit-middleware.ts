/**
 * The spec's token buckets on every RPC, REST and gRPC alike (spec, "Limits"):
 * - per client IP, all endpoints: 100 per minute, burst 20; checked before authentication, so a
 *   flood is cut before any token is verified;
 * - per authenticated user: 1000 per hour, burst 50, unless the RPC is exempt
 *   (`exempt_from_user_quota` in its `(rate_limit)` option);
 * - per endpoint: the RPC's `(rate_limit)` (default 100 per minute, burst 20), per user when
 *   authenticated, per IP otherwise (authentication and recovery run before authentication);
 * - authentication attempts overall: 5 per minute per IP, over every RPC marked
 *   `authentication_attempt`.
 * Every number can be overridden by the operator (RATE_LIMIT_OVERRIDES,
 * src/platform/config/limit-overrides.ts).
 * Buckets of authentication RPCs fail closed when shared state is down (503); the others fail
 * open (see rate-limiter.ts).
 */
import type { DescMethod } from '@bufbuild/protobuf';
import type { HandlerContext } from '@connectrpc/connect';
import { rateLimitOf } from '../platform/api/api-services.js';
import type { BucketNumbers, LimitOverrides } from '../platform/config/limit-overrides.js';
import { rateLimited } from '../platform/errors/api-error.js';
import {
  DependencyUnavailableError,
  outageError,
} from '../platform/errors/dependency-unavailable.js';
import { callInfoOf } from '../platform/rpc/call-context.js';
import type { RpcMiddleware } from '../platform/rpc/rpc-pipeline.js';
import type { LimitMetrics } from './limit-metrics.js';
import type { RateLimitBucket, RateLimiter } from './rate-limiter.js';

/**
 * The authenticated caller's account address, or undefined for an unauthenticated call. Given
 * by the app (identity's caller in the context values), so limits does not depend on identity.
 */
export type CallerAddressOf = (context: HandlerContext) => string | undefined;

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DEFAULT_ENDPOINT = { limit: 100, burst: 20 };

/** The spec's numbers for a key, with the operator's override on top. */
function withOverride(overrides: LimitOverrides, key: string, spec: BucketNumbers): BucketNumbers {
  return { ...spec, ...overrides.get(key) };
}

/** Before authentication: the per-IP bucket. */
export function limitByIp(
  limiter: RateLimiter,
  metrics: LimitMetrics,
  overrides: LimitOverrides,
): RpcMiddleware {
  const numbers = withOverride(overrides, 'ip', { limit: 100, burst: 20, windowMs: MINUTE });
  return async ({ method, context }, next) => {
    const { clientIp } = callInfoOf(context);
    await consume(limiter, metrics, `${method.parent.name}.${method.name}`, {
      scope: 'ip',
      key: clientIp,
      ...numbers,
      failOpen: true,
    });
    return next();
  };
}

/** The same per-IP bucket for the operational paths (health, metrics, swagger): the error, or undefined. */
export function opsIpLimit(limiter: RateLimiter, metrics: LimitMetrics, overrides: LimitOverrides) {
  const numbers = withOverride(overrides, 'ip', { limit: 100, burst: 20, windowMs: MINUTE });
  return (clientIp: string): Promise<unknown> =>
    consume(limiter, metrics, 'ops', {
      scope: 'ip',
      key: clientIp,
      ...numbers,
      failOpen: true,
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
}

/** After authentication: the per-user, per-endpoint and authentication-attempt buckets. */
export function limitByCaller(
  limiter: RateLimiter,
  metrics: LimitMetrics,
  overrides: LimitOverrides,
  callerAddressOf: CallerAddressOf,
): RpcMiddleware {
  const user = withOverride(overrides, 'user', { limit: 1000, burst: 50, windowMs: HOUR });
  const auth = withOverride(overrides, 'auth', { limit: 5, burst: 5, windowMs: MINUTE });
  const endpointDefault = withOverride(overrides, 'default', {
    ...DEFAULT_ENDPOINT,
    windowMs: MINUTE,
  });
  const endpoints = new WeakMap<DescMethod, BucketNumbers>();
  const endpointOf = (method: DescMethod) => {
    let numbers = endpoints.get(method);
    if (!numbers) {
      const rule = rateLimitOf(method);
      const declared = {
        limit: rule?.limit || endpointDefault.limit,
        burst: rule?.burst || endpointDefault.burst,
        windowMs: rule?.windowSeconds ? rule.windowSeconds * 1000 : endpointDefault.windowMs,
      };
      numbers = withOverride(overrides, `${method.parent.name}.${method.name}`, declared);
      endpoints.set(method, numbers);
    }
    return numbers;
  };
  return async ({ method, context }, next) => {
    const rule = rateLimitOf(method);
    const caller = callerAddressOf(context);
    const { clientIp } = callInfoOf(context);
    const authentication = rule?.authenticationAttempt === true;
    const buckets: RateLimitBucket[] = [];
    if (caller && !rule?.exemptFromUserQuota)
      buckets.push({ scope: 'user', key: caller, ...user, failOpen: true });
    // The overall allowance of authentication attempts is checked before the endpoint's own.
    if (authentication) buckets.push({ scope: 'auth', key: clientIp, ...auth, failOpen: false });
    const who = caller && !authentication ? `user:${caller}` : `ip:${clientIp}`;
    buckets.push({
      scope: 'endpoint',
      key: `${method.parent.typeName}.${method.name}:${who}`,
      ...endpointOf(method),
      failOpen: !authentication,
    });
    for (const bucket of buckets)
      await consume(limiter, metrics, `${method.parent.name}.${method.name}`, bucket);
    return next();
  };
}

/** `label` names the RPC (or `ops`) in the refusal metric. */
async function consume(
  limiter: RateLimiter,
  metrics: LimitMetrics,
  label: string,
  bucket: RateLimitBucket,
): Promise<void> {
  const decision = await limiter.consume(bucket);
  if (decision.allowed) return;
  // The bucket's shared state is away: the outage's 503, with the Retry-After every other
  // outage answer has (a bare 503 here left clients without a retry hint during Redis outages).
  if (decision.outcome === 'failed_closed')
    throw outageError(new DependencyUnavailableError('redis', `rate-limit bucket ${bucket.scope}`));
  metrics.rateLimited.inc({ scope: bucket.scope, rpc: label });
  throw rateLimited(
    decision.limit,
    decision.windowMs,
    decision.retryAfterMs,
    bucket.scope === 'endpoint',
  );
}
