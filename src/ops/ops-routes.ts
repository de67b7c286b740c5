/**
 * The operational paths (spec, "Operational paths"): /health and its sub-paths, /metrics,
 * /swagger/ and the reference web app at /app/. They sit outside the API versioning and outside
 * per-user quotas. All but the web app's static files are under the per-IP limit (spec,
 * "Limits"): the app's page, script and stylesheet are no API endpoint, and a browser opening the
 * app in two windows must not spend on them the allowance its API calls need (web-app-files.ts
 * answers them from memory, mostly with a 304).
 */
import type { Metrics } from '../platform/metrics/metrics.js';
import { jsonResponse } from '../server/http-message.js';
import type { HttpResponseData, IncomingRequest } from '../server/http-message.js';
import type { Readiness } from './readiness.js';
import type { WebAppRequest } from './web-app/web-app-files.js';

export interface OpsRoute {
  readonly label: string;
  /** Whether the request spends the client IP's allowance (spec: every endpoint does). */
  readonly limitedPerIp: boolean;
  handle(request: IncomingRequest): Promise<HttpResponseData>;
}

export interface OpsDependencies {
  readonly readiness: Readiness;
  readonly metrics: Metrics;
  /** Serves /swagger/ and its assets; undefined on processes without the API (role ws). */
  readonly swagger?: (path: string) => HttpResponseData;
  /** Serves the reference web app at /app/; undefined on processes without the API (role ws). */
  readonly webApp?: (request: WebAppRequest) => HttpResponseData;
}

export function opsRoute(
  method: string,
  path: string,
  deps: OpsDependencies,
): OpsRoute | undefined {
  if (method !== 'GET' && method !== 'HEAD') return undefined;
  switch (path) {
    case '/health':
    case '/health/ready':
      return { label: path, limitedPerIp: true, handle: () => readinessResponse(deps.readiness) };
    case '/health/live':
      return {
        label: path,
        limitedPerIp: true,
        handle: async () => jsonResponse(200, { success: true, status: 'alive' }),
      };
    case '/metrics':
      return { label: path, limitedPerIp: true, handle: () => metricsResponse(deps.metrics) };
  }
  if (deps.swagger && (path === '/swagger' || path.startsWith('/swagger/'))) {
    const swagger = deps.swagger;
    return { label: '/swagger/', limitedPerIp: true, handle: async () => swagger(path) };
  }
  if (deps.webApp && (path === '/app' || path.startsWith('/app/'))) {
    const webApp = deps.webApp;
    return {
      label: '/app/',
      limitedPerIp: false,
      handle: async (request) =>
        webApp({ path, ifNoneMatch: request.headers.get('if-none-match') }),
    };
  }
  return undefined;
}

async function readinessResponse(readiness: Readiness): Promise<HttpResponseData> {
  const report = await readiness.report();
  const status = report.ready ? 'ok' : readiness.isDraining ? 'draining' : 'unavailable';
  return jsonResponse(report.ready ? 200 : 503, {
    success: report.ready,
    status,
    checks: report.checks,
  });
}

async function metricsResponse(metrics: Metrics): Promise<HttpResponseData> {
  return {
    status: 200,
    headers: [['Content-Type', metrics.registry.contentType]],
    body: await metrics.registry.metrics(),
  };
}
