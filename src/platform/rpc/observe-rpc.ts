/**
 * Middleware that measures and logs every RPC: one metrics sample and, for failures, one log
 * line with the request id. Unexpected (non-Connect) errors are logged with their stack and
 * turned into an opaque INTERNAL error so that nothing internal leaks to clients. A dependency
 * outage is no bug: it becomes 503 UNAVAILABLE with Retry-After, reported by the OutageLog
 * once per interval rather than once per request.
 */
import { Code, ConnectError } from '@connectrpc/connect';
import { DependencyUnavailableError, outageError } from '../errors/dependency-unavailable.js';
import type { OutageLog } from '../logging/outage-log.js';
import type { Metrics } from '../metrics/metrics.js';
import { callInfoOf } from './call-context.js';
import type { RpcMiddleware } from './rpc-pipeline.js';

export function observeRpc(metrics: Metrics, outages: OutageLog): RpcMiddleware {
  return async ({ method, context }, next) => {
    const started = process.hrtime.bigint();
    const info = callInfoOf(context);
    let code = 'ok';
    try {
      return await next();
    } catch (error) {
      if (error instanceof ConnectError) {
        code = Code[error.code];
        if (error.code === Code.Internal || error.code === Code.Unknown) {
          info.logger.error({ err: error, rpc: method.name }, 'rpc failed');
        }
        throw error;
      }
      if (error instanceof DependencyUnavailableError) {
        code = Code[Code.Unavailable];
        outages.report(error);
        throw outageError(error);
      }
      code = Code[Code.Internal];
      info.logger.error({ err: error, rpc: method.name }, 'rpc failed unexpectedly');
      throw new ConnectError('Internal server error', Code.Internal);
    } finally {
      const labels = { service: method.parent.name, method: method.name, code, transport: info.transport };
      metrics.rpc.record(labels, Number(process.hrtime.bigint() - started) / 1e9);
    }
  };
}
