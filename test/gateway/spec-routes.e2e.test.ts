/**
 * Over real HTTP, every route the spec lists answers under both prefixes: implemented, or 501
 * NOT_IMPLEMENTED, but never the router's 404 or 405.
 */
import { bothPrefixes, specRoutes } from '../support/spec-routes.js';
import { serviceForThisFile } from '../support/service-for-tests.js';

const { service } = serviceForThisFile();

const requests = specRoutes().flatMap((route) =>
  (route.method ? [route.method] : ['GET', 'POST']).flatMap((method) =>
    bothPrefixes(route.path).map((path) => [method, path] as const),
  ),
);

it.each(requests)('%s %s is served', async (method, path) => {
  const concrete = path.replace(/\{[^}]*\}/g, 'sample1');
  const response = await fetch(`${service.baseUrl}${concrete}`, {
    method,
    headers: method === 'GET' || method === 'DELETE' ? {} : { 'content-type': 'application/json' },
    body: method === 'GET' || method === 'DELETE' ? undefined : '{}',
  });
  const body = (await response.json()) as { error?: string };
  expect(response.status).not.toBe(405);
  if (response.status === 404) expect(body.error).not.toMatch(/^No route for/);
  expect(response.headers.get('x-api-version')).toBe('v1');
});
