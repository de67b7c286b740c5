/**
 * What every operation answers besides its own 200 (spec, "Errors", "Limits" and
 * "Versioning"): the failure envelope, the per-endpoint rate-limit body, and the version,
 * deprecation and rate-limit headers. Kept as shared components and referenced.
 */
import type { Content, Header, Reference, Response, Schema, SchemaOrRef } from './openapi-types.js';
import { CSRF_TOKEN_INVALID } from '../../identity/auth/csrf.js';
import { schemaRef } from './message-schemas.js';

export const sharedSchemas: Record<string, Schema> = {
  ErrorEnvelope: {
    type: 'object',
    description: 'The body of every failure.',
    required: ['success', 'error'],
    properties: {
      success: { type: 'boolean', enum: [false] },
      error: { type: 'string', description: 'What went wrong, for people.' },
      code: {
        type: 'string',
        description:
          'The machine reason, for some errors: for example `UNAUTHORIZED`, `EXPIRED_SIGNATURE`, ' +
          `\`REPLAY_DETECTED\`, \`RATE_LIMIT_EXCEEDED\`, \`${CSRF_TOKEN_INVALID}\`.`,
      },
    },
  },
  RateLimitExceeded: {
    type: 'object',
    description:
      'The body of a 429 from a per-endpoint limit. The global per-IP and per-user limits answer ' +
      'with the error envelope and the code `RATE_LIMIT_EXCEEDED` instead.',
    required: ['error', 'message', 'retry_after', 'limit', 'window'],
    properties: {
      error: { type: 'string' },
      message: { type: 'string' },
      retry_after: { type: 'integer', description: 'Seconds to wait before retrying.' },
      limit: { type: 'integer', description: 'Requests allowed per window.' },
      window: { type: 'string', description: 'The window of the limit.', example: '60s' },
    },
  },
};

export const sharedHeaders: Record<string, Header> = {
  'X-API-Version': {
    description: 'The API version that served the request.',
    schema: { type: 'string', example: 'v1' },
  },
  'X-API-Stability': {
    description:
      'The stability of that version: development, alpha, beta, stable, deprecated, sunset or retired.',
    schema: { type: 'string', example: 'stable' },
  },
  Deprecation: {
    description: 'The path is deprecated.',
    schema: { type: 'string', enum: ['true'] },
  },
  Sunset: {
    description: 'When the deprecated path may stop being served (an HTTP-date, RFC 8594).',
    schema: { type: 'string' },
  },
  Link: {
    description: 'The same resource in the current version.',
    schema: { type: 'string', example: '</api/v1/version>; rel="successor-version"' },
  },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
  'X-RateLimit-Limit': { description: 'Requests allowed per window.', schema: { type: 'integer' } },
  'X-RateLimit-Window': {
    description: 'The window of that limit: 60s, 1m or 1h.',
    schema: { type: 'string' },
  },
};

const ERROR_DESCRIPTIONS: Readonly<Record<string, string>> = {
  '400': 'The request is invalid (`INVALID_ARGUMENT`).',
  '401': 'Authentication is missing or invalid (`UNAUTHORIZED`).',
  '403': 'The caller may not do this (`FORBIDDEN`).',
  '404': 'The target does not exist (`NOT_FOUND`).',
  '409': 'The request conflicts with existing state (`CONFLICT`).',
  '410': 'The target is gone for good (`GONE`).',
  '429': 'A rate limit was exceeded; wait at least Retry-After seconds.',
  '500': 'Internal error (`INTERNAL`).',
  '503': 'A dependency is temporarily unavailable (`UNAVAILABLE`).',
};

/** Any operation can fail with these (validation, authentication, rate limits, bugs). */
const GENERAL_STATUSES = ['400', '401', '403', '404', '429', '500'];
/** Listed only for the RPCs whose comment documents them, so the document stays truthful. */
const DOCUMENTED_STATUSES = ['409', '410', '503'];

/**
 * The 403 of unsafe methods (POST, PUT, PATCH, DELETE): a cookie-authenticated call without a
 * valid X-CSRF-Token is refused with its own code (src/identity/auth/csrf.ts).
 */
const CSRF_403 = '403Csrf';
const CSRF_403_DESCRIPTION =
  'The caller may not do this (`FORBIDDEN`), or the call is authenticated by the session cookie ' +
  `without a valid \`X-CSRF-Token\` header (\`${CSRF_TOKEN_INVALID}\`: send the token of the CSRF cookie).`;
const CSRF_403_EXAMPLES = {
  forbidden: {
    summary: 'Not allowed',
    value: { success: false, error: 'Not allowed', code: 'FORBIDDEN' },
  },
  csrfTokenInvalid: {
    summary: 'Cookie session without a valid X-CSRF-Token',
    value: {
      success: false,
      error: 'A valid X-CSRF-Token header is required for this request',
      code: CSRF_TOKEN_INVALID,
    },
  },
};

const headerRef = (name: string): Reference => ({ $ref: `#/components/headers/${name}` });
const json = (schema: SchemaOrRef): Content => ({ 'application/json': { schema } });
const responseName = (status: string, deprecated: boolean) =>
  `Error${status}${deprecated ? 'Deprecated' : ''}`;

/** Every response says which version served it; those of deprecated paths also say so. */
function versionHeaders(deprecated: boolean): Record<string, Reference> {
  const names = [
    'X-API-Version',
    'X-API-Stability',
    ...(deprecated ? ['Deprecation', 'Sunset', 'Link'] : []),
  ];
  return Object.fromEntries(names.map((name) => [name, headerRef(name)]));
}

/** The error responses, once for current and once for deprecated paths (their headers differ). */
export const sharedResponses: Record<string, Response> = Object.fromEntries(
  [false, true].flatMap((deprecated): [string, Response][] => [
    ...Object.keys(ERROR_DESCRIPTIONS).map((status): [string, Response] => [
      responseName(status, deprecated),
      errorResponse(status, versionHeaders(deprecated)),
    ]),
    [
      responseName(CSRF_403, deprecated),
      {
        description: CSRF_403_DESCRIPTION,
        headers: versionHeaders(deprecated),
        content: {
          'application/json': { schema: schemaRef('ErrorEnvelope'), examples: CSRF_403_EXAMPLES },
        },
      },
    ],
  ]),
);

export function operationResponses(
  success: Omit<Response, 'headers'>,
  options: {
    readonly deprecated: boolean;
    readonly rpcComment: string;
    readonly csrfTokenRequired: boolean;
  },
): Record<string, Response | Reference> {
  const statuses = [
    ...GENERAL_STATUSES,
    ...DOCUMENTED_STATUSES.filter((status) =>
      new RegExp(`\\b${status}\\b`).test(options.rpcComment),
    ),
  ].sort();
  const responses: Record<string, Response | Reference> = {
    '200': { ...success, headers: versionHeaders(options.deprecated) },
  };
  for (const status of statuses) {
    const shared = status === '403' && options.csrfTokenRequired ? CSRF_403 : status;
    responses[status] = {
      $ref: `#/components/responses/${responseName(shared, options.deprecated)}`,
    };
  }
  return responses;
}

function errorResponse(status: string, headers: Record<string, Reference>): Response {
  const description = ERROR_DESCRIPTIONS[status] as string;
  if (status !== '429') return { description, headers, content: json(schemaRef('ErrorEnvelope')) };
  return {
    description,
    headers: {
      ...headers,
      'Retry-After': headerRef('Retry-After'),
      'X-RateLimit-Limit': headerRef('X-RateLimit-Limit'),
      'X-RateLimit-Window': headerRef('X-RateLimit-Window'),
    },
    content: json({ oneOf: [schemaRef('RateLimitExceeded'), schemaRef('ErrorEnvelope')] }),
  };
}
