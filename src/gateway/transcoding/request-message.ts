/**
 * Builds the RPC request message of a REST call the way google.api.http transcoding does:
 * the body (the whole request, `body: "*"`), then the path variables, then, for routes without
 * a body (or whose raw body is streamed), the query parameters for fields the path did not bind. Unknown body members are refused
 * (400); unknown query parameters are ignored, as Envoy's transcoder is configured to do.
 */
import { ScalarType, fromJson } from '@bufbuild/protobuf';
import type { DescField, DescMessage, JsonObject, JsonValue, Message } from '@bufbuild/protobuf';
import { invalidArgument } from '../../platform/errors/api-error.js';
import type { HttpRoute } from '../routing/route-table.js';

export interface RestInput {
  readonly variables: ReadonlyMap<string, string>;
  readonly query: URLSearchParams;
  /** The parsed JSON body, or undefined when the request had none. */
  readonly body: JsonValue | undefined;
  /** A streamed raw body (`streamed_body` RPCs): the other fields come from the query string. */
  readonly queryFillsBody?: boolean;
}

export function requestMessage(route: HttpRoute, input: RestInput): Message {
  const schema = route.method.input;
  const json: JsonObject = route.body === '*' ? bodyObject(input.body) : {};
  const bound = new Set<string>();
  for (const [fieldPath, value] of input.variables) {
    setPath(schema, json, fieldPath.split('.'), [value]);
    bound.add(fieldPath.split('.')[0] as string);
  }
  if (route.body === '' || input.queryFillsBody) applyQuery(schema, json, input.query, bound);
  try {
    return fromJson(schema, json, { ignoreUnknownFields: false });
  } catch (error) {
    throw invalidArgument(`Invalid request: ${(error as Error).message}`);
  }
}

function bodyObject(body: JsonValue | undefined): JsonObject {
  if (body === undefined) return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidArgument('Invalid request: the body must be a JSON object');
  }
  return { ...body };
}

function applyQuery(
  schema: DescMessage,
  json: JsonObject,
  query: URLSearchParams,
  bound: Set<string>,
): void {
  for (const key of new Set(query.keys())) {
    const path = key.split('.');
    const top = findField(schema, path[0] as string);
    if (!top || bound.has(top.name)) continue;
    setPath(schema, json, path, query.getAll(key));
  }
}

/** Sets a (possibly dotted) field from its textual values, converting to the field's JSON type. */
function setPath(schema: DescMessage, json: JsonObject, path: string[], values: string[]): void {
  const [head, ...rest] = path;
  const field = findField(schema, head as string);
  if (!field) {
    // Path variables always name real fields (the route table was checked); query keys may not.
    return;
  }
  for (const key of [field.name, field.jsonName]) delete json[key];
  if (rest.length > 0) {
    if (field.fieldKind !== 'message') return;
    const nested = (json[field.jsonName] as JsonObject | undefined) ?? {};
    setPath(field.message, nested, rest, values);
    json[field.jsonName] = nested;
    return;
  }
  if (field.fieldKind === 'list' && field.listKind === 'scalar') {
    json[field.jsonName] = values.map((v) => scalarJson(field.scalar, v));
  } else if (field.fieldKind === 'scalar') {
    json[field.jsonName] = scalarJson(field.scalar, values[values.length - 1] as string);
  } else if (field.fieldKind === 'enum') {
    json[field.jsonName] = values[values.length - 1] as string;
  }
}

function findField(schema: DescMessage, name: string): DescField | undefined {
  return schema.fields.find((f) => f.name === name || f.jsonName === name);
}

/** Query text to the JSON value protobuf's JSON parser expects; bad text is left for it to reject. */
function scalarJson(type: ScalarType, text: string): JsonValue {
  if (type === ScalarType.BOOL) return text === 'true' ? true : text === 'false' ? false : text;
  return text;
}
