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
 * Buckets of authentication RPCs fail closed when shared state is down (503); the others fail
 * open (see rate-limiter.ts).
 */
import type { DescMethod } from '@bufbuild/protobuf';
import type { HandlerContext } from '@connectrpc/connect';
import { optionalCaller } from '../identity/auth/caller.js';
import { rateLimitOf } from '../platform/api/api-services.js';
import { rateLimited, unavailable } from '../platform/errors/api-error.js';
import type { Metrics } from '../platform/metrics/metrics.js';
import { callInfoOf } from '../platform/rpc/call-context.js';
import type { RpcMiddleware } from '../platform/rpc/rpc-pipeline.js';
import type { RateLimitBucket, RateLimiter } from './rate-limiter.js';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DEFAULT_ENDPOINT = { limit: 100, burst: 20 };

/** Before authentication: the per-IP bucket. */
export function limitByIp(limiter: RateLimiter, metrics: Metrics): RpcMiddleware {
  return async ({ method, context }, next) => {
    const { clientIp } = callInfoOf(context);
    await consume(limiter, metrics, method, { scope: 'ip', key: clientIp, limit: 100, burst: 20, windowMs: MINUTE, failOpen: true });
    return next();
  };
}

/** After authentication: the per-user, per-endpoint and authentication-attempt buckets. */
export function limitByCaller(limiter: RateLimiter, metrics: Metrics): RpcMiddleware {
  return async ({ method, context }, next) => {
    for (const bucket of callerBuckets(method, context)) await consume(limiter, metrics, method, bucket);
    return next();
  };
}

function callerBuckets(method: DescMethod, context: HandlerContext): RateLimitBucket[] {
  const rule = rateLimitOf(method);
  const caller = optionalCaller(context);
  const { clientIp } = callInfoOf(context);
  const authentication = rule?.authenticationAttempt === true;
  const buckets: RateLimitBucket[] = [];
  if (caller && !rule?.exemptFromUserQuota) {
    buckets.push({ scope: 'user', key: caller.address, limit: 1000, burst: 50, windowMs: HOUR, failOpen: true });
  }
  // The overall allowance of authentication attempts is checked before the endpoint's own.
  if (authentication) buckets.push({ scope: 'auth', key: clientIp, limit: 5, burst: 5, windowMs: MINUTE, failOpen: false });
  buckets.push({
    scope: 'endpoint',
    key: `${method.parent.typeName}.${method.name}:${caller && !authentication ? `user:${caller.address}` : `ip:${clientIp}`}`,
    limit: rule?.limit || DEFAULT_ENDPOINT.limit,
    burst: rule?.burst || DEFAULT_ENDPOINT.burst,
    windowMs: (rule?.windowSeconds || 60) * 1000,
    failOpen: !authentication,
  });
  return buckets;
}

async function consume(limiter: RateLimiter, metrics: Metrics, method: DescMethod, bucket: RateLimitBucket): Promise<void> {
  const decision = await limiter.consume(bucket);
  if (decision.allowed) return;
  if (decision.outcome === 'failed_closed') throw unavailable('Rate limiting is unavailable; retry shortly');
  metrics.rateLimited.inc({ scope: bucket.scope, rpc: `${method.parent.name}.${method.name}` });
  throw rateLimited(decision.limit, decision.windowMs, decision.retryAfterMs, bucket.scope === 'endpoint');
}
