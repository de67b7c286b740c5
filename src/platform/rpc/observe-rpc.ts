/**
 * Middleware that measures and logs every RPC: one metrics sample and, for failures, one log
 * line with the request id. Unexpected (non-Connect) errors are logged with their stack and
 * turned into an opaque INTERNAL error so that nothing internal leaks to clients. A dependency
 * outage is no bug: it becomes 503 UNAVAILABLE with Retry-After, reported by the OutageLog
 * once per interval rather than once per request. A call that answers synchronously is
 * measured and passed on synchronously (maybe-promise.ts).
 */
import { Code, ConnectError } from '@connectrpc/connect';
import { DependencyUnavailableError, outageError } from '../errors/dependency-unavailable.js';
import type { OutageLog } from '../logging/outage-log.js';
import type { Metrics } from '../metrics/metrics.js';
import { callInfoOf } from './call-context.js';
import type { CallInfo } from './call-context.js';
import { settle } from './maybe-promise.js';
import type { RpcMiddleware } from './rpc-pipeline.js';

export function observeRpc(metrics: Metrics, outages: OutageLog): RpcMiddleware {
  return ({ method, context }, next) => {
    const started = process.hrtime.bigint();
    const info = callInfoOf(context);
    const record = (code: string) => {
      const labels = {
        service: method.parent.name,
        method: method.name,
        code,
        transport: info.transport,
      };
      metrics.rpc.record(labels, Number(process.hrtime.bigint() - started) / 1e9);
    };
    return settle(
      next,
      (response) => {
        record('ok');
        return response;
      },
      (error) => {
        const { code, thrown } = classify(error, info, method.name, outages);
        record(code);
        throw thrown;
      },
    );
  };
}

/** The metrics code of a failed call and the error to pass on, logging what deserves it. */
function classify(
  error: unknown,
  info: CallInfo,
  rpc: string,
  outages: OutageLog,
): { code: string; thrown: unknown } {
  if (error instanceof ConnectError) {
    if (error.code === Code.Internal || error.code === Code.Unknown)
      info.logger.error({ err: error, rpc }, 'rpc failed');
    return { code: Code[error.code], thrown: error };
  }
  if (error instanceof DependencyUnavailableError) {
    outages.report(error);
    return { code: Code[Code.Unavailable], thrown: outageError(error) };
  }
  info.logger.error({ err: error, rpc }, 'rpc failed unexpectedly');
  return {
    code: Code[Code.Internal],
    thrown: new ConnectError('Internal server error', Code.Internal),
  };
}
