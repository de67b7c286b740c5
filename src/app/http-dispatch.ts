/**
 * Routes each HTTP request of the main port: operational paths first, then the REST gateway
 * (processes that serve the API), else a 404 in the failure envelope.
 */
import type { RestGateway } from '../gateway/rest-gateway.js';
import { opsRoute } from '../ops/ops-routes.js';
import type { OpsDependencies } from '../ops/ops-routes.js';
import { jsonResponse } from '../server/http-message.js';
import type { Dispatch } from '../server/http-server.js';

export function httpDispatch(ops: OpsDependencies, gateway: RestGateway | undefined): Dispatch {
  return async (request) => {
    const route = opsRoute(request.method, request.path, ops);
    if (route) return { ...(await route.handle(request.path)), routeLabel: route.label };
    if (gateway) return gateway.handle(request);
    const body = { success: false, error: `No route for ${request.method} ${request.path}`, code: 'NOT_FOUND' };
    return { ...jsonResponse(404, body), routeLabel: 'unmatched' };
  };
}
