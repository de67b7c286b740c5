import { parsePathTemplate } from '../../src/gateway/routing/path-template.js';
import type { HttpMethod, HttpRoute } from '../../src/gateway/routing/route-table.js';
import { Router } from '../../src/gateway/routing/router.js';

const route = (httpMethod: HttpMethod, template: string): HttpRoute =>
  ({ httpMethod, template, segments: parsePathTemplate(template) }) as unknown as HttpRoute;

const routes = [
  route('POST', '/api/v1/groups/create'),
  route('GET', '/api/v1/groups/{group_id}'),
  route('POST', '/api/v1/groups/{group_id}/leave'),
  route('POST', '/api/v1/groups/join/{invite_code}'),
  route('DELETE', '/api/v1/groups/{group_id}/members/{address}'),
  route('GET', '/api/v1/files/{path=**}'),
];
const router = new Router(routes);

function found(method: string, path: string) {
  const match = router.match(method, path);
  if (match.kind !== 'found') throw new Error(`expected a match, got ${match.kind}`);
  return { template: match.route.template, variables: Object.fromEntries(match.variables) };
}

describe('Router', () => {
  it('prefers a literal segment over a variable', () => {
    expect(found('POST', '/api/v1/groups/create').template).toBe('/api/v1/groups/create');
  });

  it('backtracks from a literal branch that leads nowhere', () => {
    // "join" is a literal child, but /join/leave only exists under the variable branch.
    expect(found('POST', '/api/v1/groups/join/leave')).toEqual({
      template: '/api/v1/groups/join/{invite_code}',
      variables: { invite_code: 'leave' },
    });
    expect(found('GET', '/api/v1/groups/join')).toEqual({
      template: '/api/v1/groups/{group_id}',
      variables: { group_id: 'join' },
    });
  });

  it('binds and percent-decodes variables', () => {
    expect(found('DELETE', '/api/v1/groups/g%201/members/0xAB')).toEqual({
      template: '/api/v1/groups/{group_id}/members/{address}',
      variables: { group_id: 'g 1', address: '0xAB' },
    });
  });

  it('binds the rest of the path to a ** variable', () => {
    expect(found('GET', '/api/v1/files/a/b/c').variables).toEqual({ path: 'a/b/c' });
  });

  it('answers method-not-allowed with the allowed methods', () => {
    expect(router.match('PUT', '/api/v1/groups/g1')).toEqual({
      kind: 'method-not-allowed',
      allowed: ['GET'],
    });
  });

  it.each([
    '/api/v1/groups',
    '/api/v1/groups/g1/',
    '/api/v1/unknown',
    '/api/v1/groups/%E0%A4%A/leave',
    '/',
  ])('does not find %s', (path) => {
    expect(router.match('GET', path).kind === 'found').toBe(false);
    expect(router.match('POST', path).kind === 'found').toBe(false);
  });
});
