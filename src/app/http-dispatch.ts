/**
 * Routes each HTTP request of the main port: operational paths first, then the REST gateway
 * (processes that serve the API), else a 404 in the failure envelope.
 */
import type { RestGateway } from '../gateway/rest-gateway.js';
import { opsRoute } from '../ops/ops-routes.js';
import type { OpsRoute } from '../ops/ops-routes.js';
import type { OpsDependencies } from '../ops/ops-routes.js';
import { renderError } from '../platform/errors/http-status.js';
import { jsonResponse } from '../server/http-message.js';
import type { IncomingRequest, RoutedResponse } from '../server/http-message.js';
import type { Dispatch } from '../server/http-server.js';

/** Refuses a client over its per-IP allowance: the error to render, or undefined to go on. */
export type IpLimit = (clientIp: string) => Promise<unknown>;

/**
 * The operational paths are exempt from per-user quotas but not from the per-IP limit (spec,
 * "Limits"), except the web app's static files (ops-routes.ts); API routes meet the same bucket
 * in the RPC pipeline.
 */
export function httpDispatch(
  ops: OpsDependencies,
  gateway: RestGateway | undefined,
  ipLimit?: IpLimit,
): Dispatch {
  return (request) => {
    const route = opsRoute(request.method, request.path, ops);
    if (route) return opsResponse(route, request, ipLimit);
    // The gateway answers synchronously when the RPC does: no async layer here to add a hop.
    if (gateway) return gateway.handle(request);
    const body = {
      success: false,
      error: `No route for ${request.method} ${request.path}`,
      code: 'NOT_FOUND',
    };
    return { ...jsonResponse(404, body), routeLabel: 'unmatched' };
  };
}

async function opsResponse(
  route: OpsRoute,
  request: IncomingRequest,
  ipLimit: IpLimit | undefined,
): Promise<RoutedResponse> {
  const refusal = route.limitedPerIp ? await ipLimit?.(request.clientIp) : undefined;
  if (refusal) {
    const rendered = renderError(refusal);
    return {
      ...jsonResponse(rendered.status, rendered.body, rendered.headers),
      routeLabel: route.label,
    };
  }
  return { ...(await route.handle(request)), routeLabel: route.label };
}
