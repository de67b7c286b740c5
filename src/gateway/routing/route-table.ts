/**
 * The REST route table, derived from the `google.api.http` rules of the API's RPCs. Nothing
 * here is kept by hand: adding an RPC with a rule adds its routes, under both the versioned
 * path it is written with and the deprecated unversioned alias.
 */
import type { DescMethod, DescService } from '@bufbuild/protobuf';
import { getOption, hasOption } from '@bufbuild/protobuf';
import { http } from '../../gen/google/api/annotations_pb.js';
import type { HttpRule } from '../../gen/google/api/http_pb.js';
import { CURRENT, LEGACY } from '../../platform/api/api-versions.js';
import type { ApiGeneration } from '../../platform/api/api-versions.js';
import { parsePathTemplate } from './path-template.js';
import type { TemplateSegment } from './path-template.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface HttpRoute {
  readonly httpMethod: HttpMethod;
  /** The path template as served, e.g. `/api/keys/{address}` for the alias. */
  readonly template: string;
  readonly segments: readonly TemplateSegment[];
  readonly service: DescService;
  readonly method: DescMethod;
  /** `*` (the body is the whole request) or '' (no body). */
  readonly body: '*' | '';
  /** The generation this path belongs to; an unversioned route is `LEGACY`. */
  readonly generation: ApiGeneration;
}

export class RouteTableError extends Error {}

export function buildRouteTable(services: readonly DescService[]): HttpRoute[] {
  const routes: HttpRoute[] = [];
  for (const service of services) {
    for (const method of service.methods) {
      if (!hasOption(method, http)) continue;
      if (method.methodKind !== 'unary') {
        throw new RouteTableError(
          `${method.parent.typeName}.${method.name}: REST routes need unary RPCs`,
        );
      }
      const rule = getOption(method, http);
      for (const binding of [rule, ...rule.additionalBindings]) {
        routes.push(...routesOfBinding(service, method, binding));
      }
    }
  }
  assertNoConflicts(routes);
  return routes;
}

function routesOfBinding(service: DescService, method: DescMethod, rule: HttpRule): HttpRoute[] {
  const [httpMethod, template] = methodAndTemplate(rule, method);
  const body = checkBody(rule.body, method);
  if (rule.responseBody !== '') {
    throw new RouteTableError(
      `${method.parent.typeName}.${method.name}: response_body is not supported`,
    );
  }
  const base = { httpMethod, service, method, body };
  const versioned = template.startsWith(CURRENT.prefix + '/');
  // Paths outside /api (e.g. POST /errors) are not an API generation: they report the current one.
  const generation = !versioned && template.startsWith(LEGACY.prefix + '/') ? LEGACY : CURRENT;
  const routes: HttpRoute[] = [
    { ...base, template, segments: parsePathTemplate(template), generation },
  ];
  if (versioned) {
    const alias = LEGACY.prefix + template.slice(CURRENT.prefix.length);
    routes.push({
      ...base,
      template: alias,
      segments: parsePathTemplate(alias),
      generation: LEGACY,
    });
  }
  return routes;
}

function methodAndTemplate(rule: HttpRule, method: DescMethod): [HttpMethod, string] {
  switch (rule.pattern.case) {
    case 'get':
      return ['GET', rule.pattern.value];
    case 'post':
      return ['POST', rule.pattern.value];
    case 'put':
      return ['PUT', rule.pattern.value];
    case 'patch':
      return ['PATCH', rule.pattern.value];
    case 'delete':
      return ['DELETE', rule.pattern.value];
    default:
      throw new RouteTableError(
        `${method.parent.typeName}.${method.name}: unsupported http pattern`,
      );
  }
}

/** A body bound to one field is legal in google.api.http but unused here: refuse rather than half-support it. */
function checkBody(body: string, method: DescMethod): '*' | '' {
  if (body === '' || body === '*') return body;
  throw new RouteTableError(
    `${method.parent.typeName}.${method.name}: body must be "*" or absent, not "${body}"`,
  );
}

function assertNoConflicts(routes: readonly HttpRoute[]): void {
  const seen = new Map<string, HttpRoute>();
  for (const route of routes) {
    const key = `${route.httpMethod} ${route.template.replace(/\{[^}]*\}/g, '{}')}`;
    const other = seen.get(key);
    if (other) {
      throw new RouteTableError(
        `${key} is bound to both ${other.method.name} and ${route.method.name}`,
      );
    }
    seen.set(key, route);
  }
}
