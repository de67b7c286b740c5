import { buildRouteTable } from '../../src/gateway/routing/route-table.js';
import { buildOpenApiDocument } from '../../src/ops/openapi/document.js';
import type {
  Operation,
  OperationMethod,
  Response,
  Schema,
} from '../../src/ops/openapi/openapi-types.js';
import { apiServices } from '../../src/platform/api/api-services.js';
import { apiDescriptorSet } from '../../src/platform/api/descriptor-set.js';

const routes = buildRouteTable(apiServices);
const document = buildOpenApiDocument(routes, apiDescriptorSet(), {
  title: 'Messaging API',
  version: 'v1',
  sessionCookieName: 'session',
});
const operations: [string, OperationMethod, Operation][] = Object.entries(document.paths).flatMap(
  ([path, item]) =>
    Object.entries(item).map(([method, op]): [string, OperationMethod, Operation] => [
      path,
      method as OperationMethod,
      op,
    ]),
);
const openApiPath = (template: string) => template.replace(/\{([^}=]+)(=[^}]*)?\}/g, '{$1}');
const operationOf = (template: string, method: string) =>
  document.paths[openApiPath(template)]?.[method.toLowerCase() as OperationMethod];

/** Every `$ref` in the document, with where it was found. */
function collectRefs(value: unknown, at: string, out: [string, string][] = []): [string, string][] {
  if (Array.isArray(value)) value.forEach((item, i) => collectRefs(item, `${at}/${i}`, out));
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref') out.push([inner as string, at]);
      else collectRefs(inner, `${at}/${key}`, out);
    }
  }
  return out;
}

function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  return ref
    .slice(2)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>(
      (node, key) =>
        node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined,
      root,
    );
}

describe('OpenAPI document', () => {
  it('is plain JSON of OpenAPI 3.0.3', () => {
    expect(document.openapi).toBe('3.0.3');
    expect(JSON.parse(JSON.stringify(document))).toEqual(document);
  });

  it('resolves every $ref', () => {
    const unresolved = collectRefs(document, '#').filter(
      ([ref]) => resolvePointer(document, ref) === undefined,
    );
    expect(unresolved).toEqual([]);
  });

  it('has an operation for every route of the route table, deprecated exactly on the deprecated ones', () => {
    expect(routes.length).toBeGreaterThan(0);
    for (const route of routes) {
      const operation = operationOf(route.template, route.httpMethod);
      expect({
        route: `${route.httpMethod} ${route.template}`,
        found: operation !== undefined,
      }).toEqual({
        route: `${route.httpMethod} ${route.template}`,
        found: true,
      });
      expect(operation?.deprecated ?? false).toBe(route.generation.deprecated);
      expect(operation?.tags).toEqual([route.service.name]);
    }
    expect(operations).toHaveLength(routes.length);
  });

  it('marks the unversioned /api/ aliases deprecated', () => {
    const aliases = routes.filter(
      (r) => r.template.startsWith('/api/') && !r.template.startsWith('/api/v1/'),
    );
    expect(aliases.length).toBeGreaterThan(0);
    for (const route of aliases)
      expect(operationOf(route.template, route.httpMethod)?.deprecated).toBe(true);
  });

  it('has unique operationIds', () => {
    const ids = operations.map(([, , op]) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(operationOf('/api/v1/version', 'GET')?.operationId).toBe('SystemService_GetVersion');
    expect(operationOf('/api/version', 'GET')?.operationId).toBe('SystemService_GetVersion_legacy');
  });

  it('declares exactly the path parameters of each path, all required', () => {
    for (const [path, , operation] of operations) {
      const variables = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      const declared = (operation.parameters ?? []).filter((p) => p.in === 'path');
      expect({ path, params: declared.map((p) => p.name).sort() }).toEqual({
        path,
        params: variables,
      });
      for (const parameter of declared) expect(parameter.required).toBe(true);
    }
  });

  it('has no two paths that differ only in parameter names (OpenAPI forbids it)', () => {
    const shapes = Object.keys(document.paths).map((path) => path.replace(/\{[^}]+\}/g, '{}'));
    expect(new Set(shapes).size).toBe(shapes.length);
  });

  it('documents error responses with the shared envelope and the version headers', () => {
    const resolve = (response: unknown) =>
      (response && typeof response === 'object' && '$ref' in response
        ? resolvePointer(document, (response as { $ref: string }).$ref)
        : response) as Response | undefined;
    for (const [, , operation] of operations) {
      for (const status of ['200', '400', '401', '403', '404', '429', '500']) {
        const response = resolve(operation.responses[status]);
        expect(response?.headers?.['X-API-Version']).toEqual({
          $ref: '#/components/headers/X-API-Version',
        });
        expect(response?.headers?.['X-API-Stability']).toBeDefined();
        for (const header of ['Deprecation', 'Sunset', 'Link']) {
          expect(response?.headers?.[header] !== undefined).toBe(operation.deprecated === true);
        }
      }
      expect(resolve(operation.responses['404'])?.content?.['application/json']?.schema).toEqual({
        $ref: '#/components/schemas/ErrorEnvelope',
      });
      const tooMany = resolve(operation.responses['429']);
      for (const header of ['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Window']) {
        expect(tooMany?.headers?.[header]).toBeDefined();
      }
      expect(JSON.stringify(tooMany?.content)).toContain('#/components/schemas/RateLimitExceeded');
    }
  });

  it('takes summaries and descriptions from the RPC comments, and security from the access option', () => {
    const getVersion = operationOf('/api/v1/version', 'GET');
    expect(getVersion?.summary).toBe(
      'Reports the API version that served the request and the versions the service supports.',
    );
    expect(getVersion?.security).toEqual([]);
    expect(document.security).toEqual([{ BearerAuth: [] }, { CookieSession: [] }]);
    expect(document.components.securitySchemes['BearerAuth']).toMatchObject({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
    });
    expect(document.components.securitySchemes['CookieSession']).toMatchObject({
      type: 'apiKey',
      in: 'cookie',
      name: 'session',
    });
    expect(document.components.securitySchemes['SignatureAuth']).toMatchObject({
      in: 'header',
      name: 'X-Signature',
    });
    expect(document.components.securitySchemes['WalletAuth']).toMatchObject({
      in: 'header',
      name: 'X-Wallet-Address',
    });
    expect(operationOf('/api/v1/errors', 'POST')?.description).toContain(
      'Rate limit: 10 requests per 60 s, burst 3.',
    );
  });

  it('declares SignatureAuth (with BearerAuth) on exactly the signature-gated operations: account deletion and recovery setup (and their legacy paths)', () => {
    const signed = operations.filter(([, , op]) =>
      JSON.stringify(op.security ?? []).includes('SignatureAuth'),
    );
    expect(signed.map(([path, method]) => `${method.toUpperCase()} ${path}`).sort()).toEqual(
      [
        'POST /api/delete-account',
        'POST /api/v1/delete-account',
        'POST /api/recovery/setup',
        'POST /api/v1/recovery/setup',
      ].sort(),
    );
    for (const [, , op] of signed) {
      expect(op.security).toEqual(
        expect.arrayContaining([expect.objectContaining({ BearerAuth: [], SignatureAuth: [] })]),
      );
      expect(op.description).toContain('X-Signature');
    }
  });

  it('maps messages to schemas with JSON names, JSON types and field comments', () => {
    const schemas = document.components.schemas;
    const versionInfo = schemas['service.v1.VersionInfo'] as Schema;
    expect(versionInfo.description).toBe('Which API version served a request.');
    expect(versionInfo.properties?.['supported_versions']).toMatchObject({
      type: 'array',
      items: { type: 'string' },
    });
    expect(versionInfo.properties?.['deprecated']).toMatchObject({ type: 'boolean' });
    const error = schemas['service.v1.FrontendError'] as Schema;
    expect(error.properties?.['additionalInfo']).toMatchObject({
      type: 'object',
      additionalProperties: true,
    });
    expect(error.properties?.['timestamp']).toMatchObject({ type: 'number', format: 'double' });
    expect((error.properties?.['url'] as Schema).description).toBe(
      'The page on which it happened.',
    );
    const batch = schemas['service.v1.ReportErrorsRequest'] as Schema;
    expect(batch.properties?.['batchTimestamp']).toMatchObject({ type: 'number' });
    expect(batch.properties?.['errors']).toMatchObject({
      type: 'array',
      items: { $ref: '#/components/schemas/service.v1.FrontendError' },
    });
    const accepted = (schemas['service.v1.ReportErrorsResponse'] as Schema).properties?.[
      'accepted'
    ];
    expect(accepted).toMatchObject({ type: 'integer', format: 'int32' });
    expect((schemas['service.v1.GetVersionResponse'] as Schema).properties?.['data']).toEqual({
      allOf: [{ $ref: '#/components/schemas/service.v1.VersionInfo' }],
      description: 'The version data.',
    });
  });

  it('documents a JSON body for body "*" routes and query parameters for GET and DELETE', () => {
    const report = operationOf('/api/v1/errors', 'POST');
    expect(report?.requestBody?.content['application/json']?.schema).toEqual({
      $ref: '#/components/schemas/service.v1.ReportErrorsRequest',
    });
    for (const route of routes.filter((r) => r.body === '')) {
      const operation = operationOf(route.template, route.httpMethod);
      expect(operation?.requestBody).toBeUndefined();
      const pathFields = new Set(
        route.segments.flatMap((s) => (s.kind === 'variable' ? [s.fieldPath.split('.')[0]] : [])),
      );
      const queryNames = new Set(
        (operation?.parameters ?? [])
          .filter((p) => p.in === 'query')
          .map((p) => p.name.split('.')[0]),
      );
      for (const field of route.method.input.fields) {
        const queryable =
          field.fieldKind === 'scalar' ||
          field.fieldKind === 'enum' ||
          (field.fieldKind === 'list' && field.listKind === 'scalar');
        if (queryable && !pathFields.has(field.name))
          expect(queryNames.has(field.jsonName)).toBe(true);
      }
    }
  });
});
