/**
 * The operational paths (spec, "Operational paths"): /health and its sub-paths, /metrics,
 * /swagger/ and the reference web app at /app/. They sit outside the API versioning and outside
 * per-user quotas.
 */
import type { Metrics } from '../platform/metrics/metrics.js';
import { jsonResponse } from '../server/http-message.js';
import type { HttpResponseData } from '../server/http-message.js';
import type { Readiness } from './readiness.js';

export interface OpsRoute {
  readonly label: string;
  handle(path: string): Promise<HttpResponseData>;
}

export interface OpsDependencies {
  readonly readiness: Readiness;
  readonly metrics: Metrics;
  /** Serves /swagger/ and its assets; undefined on processes without the API (role ws). */
  readonly swagger?: (path: string) => HttpResponseData;
  /** Serves the reference web app at /app/; undefined on processes without the API (role ws). */
  readonly webApp?: (path: string) => HttpResponseData;
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
      return { label: path, handle: () => readinessResponse(deps.readiness) };
    case '/health/live':
      return {
        label: path,
        handle: async () => jsonResponse(200, { success: true, status: 'alive' }),
      };
    case '/metrics':
      return { label: path, handle: () => metricsResponse(deps.metrics) };
  }
  if (deps.swagger && (path === '/swagger' || path.startsWith('/swagger/'))) {
    const swagger = deps.swagger;
    return { label: '/swagger/', handle: async () => swagger(path) };
  }
  if (deps.webApp && (path === '/app' || path.startsWith('/app/'))) {
    const webApp = deps.webApp;
    return { label: '/app/', handle: async () => webApp(path) };
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
