/**
 * The gateway serves every route the spec lists, under both prefixes, and every route it serves
 * beyond the spec is a documented addition (docs/api-additions.md).
 */
import { readFileSync } from 'node:fs';
import { buildRouteTable } from '../../src/gateway/routing/route-table.js';
import { Router } from '../../src/gateway/routing/router.js';
import { apiServices } from '../../src/platform/api/api-services.js';
import { bothPrefixes, shapeOf, specRoutes } from '../support/spec-routes.js';

const routes = buildRouteTable(apiServices);
const router = new Router(routes);
const concrete = (path: string) => path.replace(/\{[^}]*\}/g, 'sample1');

describe('spec routes', () => {
  const listed = specRoutes();

  it('finds the spec routes (sanity check of the extraction)', () => {
    expect(listed.length).toBeGreaterThan(80);
    expect(listed).toContainEqual({ method: 'POST', path: '/api/v1/initialize' });
    expect(listed).toContainEqual({
      method: 'DELETE',
      path: '/api/v1/mfa/trusted-devices/{deviceId}',
    });
    expect(listed).toContainEqual({ method: 'POST', path: '/errors' });
    expect(listed).toContainEqual({ method: 'POST', path: '/api/auth/migrate-phone-hash' });
    expect(listed).toContainEqual({ method: undefined, path: '/api/v1/stories' });
    expect(listed).toContainEqual({ method: 'POST', path: '/api/v1/groups/join/{inviteCode}' });
  });

  it.each(
    listed.flatMap((route) =>
      bothPrefixes(route.path).map((path) => [route.method ?? 'ANY', path] as const),
    ),
  )('%s %s is routed', (method, path) => {
    const methods = method === 'ANY' ? ['GET', 'POST'] : [method];
    const found = methods.filter((m) => router.match(m, concrete(path)).kind === 'found');
    // A method-less spec path (stories, polls) must serve at least reading and creating.
    expect(found).toEqual(methods);
    for (const m of found) {
      const match = router.match(m, concrete(path));
      if (match.kind === 'found') expect(shapeOf(match.route.template)).toBe(shapeOf(path));
    }
  });

  it('every other served route is a documented addition', () => {
    // A spec path without a method (stories, polls) covers every method on it.
    const inSpec = new Set(
      listed.flatMap((r) => bothPrefixes(r.path).map((p) => `${r.method ?? 'ANY'} ${shapeOf(p)}`)),
    );
    const additions = readFileSync(new URL('../../docs/api-additions.md', import.meta.url), 'utf8');
    const undocumented = routes
      .filter(
        (route) => route.generation.deprecated === false || !route.template.startsWith('/api/'),
      )
      .filter(
        (route) =>
          !inSpec.has(`${route.httpMethod} ${shapeOf(route.template)}`) &&
          !inSpec.has(`ANY ${shapeOf(route.template)}`),
      )
      .map((route) => `${route.httpMethod} ${route.template}`)
      .filter((line) => !additions.includes(`\`${line}\``));
    expect(undocumented).toEqual([]);
  });
});
