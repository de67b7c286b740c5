/**
 * One OpenAPI operation per REST route: documentation from the RPC's comment and options,
 * parameters from the path template and the query binding, the request body per the rule's
 * `body`, the 200 response from the response message.
 */
import type { DescField, DescMethod } from '@bufbuild/protobuf';
import type { HttpRoute } from '../../gateway/routing/route-table.js';
import { accessOf, rateLimitOf } from '../../platform/api/api-services.js';
import type { CommentIndex } from './comments.js';
import type { MessageSchemas } from './message-schemas.js';
import type { Content, Operation, RequestBody } from './openapi-types.js';
import { pathParameters, queryParameters } from './parameters.js';
import { csrfTokenRequired } from '../../identity/auth/csrf.js';
import { operationResponses } from './responses.js';
import { operationSecurity } from './security.js';

/** google.api.HttpBody carries raw bytes instead of JSON, in either direction. */
const HTTP_BODY = 'google.api.HttpBody';
const BINARY: Content = {
  'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
};

export function buildOperation(
  route: HttpRoute,
  operationId: string,
  comments: CommentIndex,
  schemas: MessageSchemas,
): Operation {
  const comment = comments.of(route.method);
  const description = [comment, ...optionNotes(route.method)].filter(Boolean).join('\n\n');
  const security = operationSecurity(route.method);
  const parameters = [...pathParameters(route, comments), ...queryParameters(route, comments)];
  const requestBody = buildRequestBody(route, schemas);
  return {
    operationId,
    tags: [route.service.name],
    ...(comment ? { summary: firstSentence(comment) } : {}),
    ...(description ? { description } : {}),
    ...(route.generation.deprecated ? { deprecated: true } : {}),
    ...(security ? { security } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses: operationResponses(
      { description: 'Success.', content: responseContent(route, schemas) },
      {
        deprecated: route.generation.deprecated,
        rpcComment: comment,
        csrfTokenRequired: csrfTokenRequired(route.httpMethod),
      },
    ),
  };
}

function buildRequestBody(route: HttpRoute, schemas: MessageSchemas): RequestBody | undefined {
  const input = route.method.input;
  if (route.body === '') return undefined;
  if (route.body !== '*') {
    // The route table has checked that the body field exists.
    return {
      content: bodyFieldContent(
        input.fields.find((f) => f.name === route.body) as DescField,
        schemas,
      ),
    };
  }
  if (input.typeName === HTTP_BODY) return { content: BINARY };
  // The body carries the request minus the fields the path already binds.
  const pathFields = new Set(
    route.segments.flatMap((s) =>
      s.kind === 'variable' && !s.fieldPath.includes('.') ? [s.fieldPath] : [],
    ),
  );
  const schema =
    pathFields.size === 0 ? schemas.schemaOf(input) : schemas.objectSchema(input, pathFields);
  return { content: { 'application/json': { schema } } };
}

function responseContent(route: HttpRoute, schemas: MessageSchemas): Content {
  const output = route.method.output;
  if (output.typeName === HTTP_BODY) return BINARY;
  return { 'application/json': { schema: schemas.schemaOf(output) } };
}

function bodyFieldContent(field: DescField, schemas: MessageSchemas): Content {
  if (field.fieldKind === 'message' && field.message.typeName === HTTP_BODY) return BINARY;
  return { 'application/json': { schema: schemas.fieldSchema(field) } };
}

/** What the RPC's options declare that a client must know: permission and rate limit. */
function optionNotes(method: DescMethod): string[] {
  const notes: string[] = [];
  const permission = accessOf(method)?.permission;
  if (permission) notes.push(`Requires the permission \`${permission}\`.`);
  const limit = rateLimitOf(method);
  if (limit) {
    const window = limit.windowSeconds || 60;
    notes.push(`Rate limit: ${limit.limit} requests per ${window} s, burst ${limit.burst}.`);
  }
  return notes;
}

/** The summary line: the comment's first sentence (or first line, when it has no full stop). */
function firstSentence(comment: string): string {
  const paragraph = comment.split(/\n\s*\n/)[0] as string;
  const sentence = /^[\s\S]*?[.!?](?=\s|$)/.exec(paragraph)?.[0] ?? paragraph.split('\n')[0] ?? '';
  return sentence.replace(/\s*\n\s*/g, ' ');
}
