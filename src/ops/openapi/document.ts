/**
 * The OpenAPI document of the REST surface, generated from the route table (itself derived
 * from the google.api.http rules) and the descriptor set's comments, so that it cannot drift
 * from what the gateway serves.
 */
import type { DescService } from '@bufbuild/protobuf';
import type { FileDescriptorSet } from '@bufbuild/protobuf/wkt';
import type { HttpRoute } from '../../gateway/routing/route-table.js';
import { indexComments } from './comments.js';
import { MessageSchemas } from './message-schemas.js';
import type { OpenApiDocument, OperationMethod } from './openapi-types.js';
import { buildOperation } from './operations.js';
import { sharedHeaders, sharedResponses, sharedSchemas } from './responses.js';
import { DEFAULT_SECURITY, securitySchemes } from './security.js';

export interface DocumentInfo {
  readonly title: string;
  /** The version of the document (OpenAPI `info.version`). */
  readonly version: string;
  readonly description?: string;
  /** The name of the session cookie, for the CookieSession security scheme. */
  readonly sessionCookieName: string;
}

export function buildOpenApiDocument(
  routes: readonly HttpRoute[],
  descriptorSet: FileDescriptorSet,
  info: DocumentInfo,
): OpenApiDocument {
  const comments = indexComments(descriptorSet);
  const schemas = new MessageSchemas(comments);
  const operationIds = new OperationIds();
  const paths: OpenApiDocument['paths'] = {};
  const services = new Map<string, DescService>();
  for (const route of routes) {
    services.set(route.service.typeName, route.service);
    const path = openApiPath(route);
    const method = route.httpMethod.toLowerCase() as OperationMethod;
    paths[path] = {
      ...paths[path],
      [method]: buildOperation(route, operationIds.next(route), comments, schemas),
    };
  }
  const { sessionCookieName, ...documentInfo } = info;
  return {
    openapi: '3.0.3',
    info: documentInfo,
    tags: [...services.values()].map((service) => {
      const description = comments.of(service);
      return description ? { name: service.name, description } : { name: service.name };
    }),
    security: DEFAULT_SECURITY,
    paths,
    components: {
      schemas: { ...sharedSchemas, ...schemas.all() },
      responses: sharedResponses,
      headers: sharedHeaders,
      securitySchemes: securitySchemes(sessionCookieName),
    },
  };
}

/**
 * `Service_Method` for the first route of an RPC, `_legacy` for its deprecated alias, and a
 * counter for any further binding, so that ids are unique and stable across builds.
 */
class OperationIds {
  private readonly used = new Set<string>();

  next(route: HttpRoute): string {
    const base = `${route.service.name}_${route.method.name}${route.generation.deprecated ? '_legacy' : ''}`;
    let id = base;
    for (let n = 2; this.used.has(id); n++) id = `${base}_${n}`;
    this.used.add(id);
    return id;
  }
}

/** OpenAPI names a path parameter only: `{name=**}` becomes `{name}`; bare wildcards cannot be expressed. */
function openApiPath(route: HttpRoute): string {
  const segments = route.segments.map((segment) => {
    if (segment.kind === 'literal') return segment.value;
    if (segment.kind === 'variable') return `{${segment.fieldPath}}`;
    throw new Error(`${route.template}: a wildcard outside a variable has no OpenAPI form`);
  });
  return '/' + segments.join('/');
}
