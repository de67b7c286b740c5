/**
 * Path and query parameters, following the google.api.http binding rules the gateway applies
 * (src/gateway/transcoding/request-message.ts): template variables bind request fields; for a
 * route without `body: "*"`, every field bound neither by the path nor by the body is read from
 * the query string, nested message fields with dotted names.
 */
import type { DescField, DescMessage } from '@bufbuild/protobuf';
import type { HttpRoute } from '../../gateway/routing/route-table.js';
import type { CommentIndex } from './comments.js';
import type { Parameter, Schema } from './openapi-types.js';
import { withDescription } from './message-schemas.js';
import { enumSchema, scalarSchema } from './scalar-schemas.js';
import { wellKnownSchema } from './well-known-schemas.js';

export function pathParameters(route: HttpRoute, comments: CommentIndex): Parameter[] {
  const parameters: Parameter[] = [];
  for (const segment of route.segments) {
    if (segment.kind !== 'variable') continue;
    const field = resolveFieldPath(route.method.input, segment.fieldPath);
    const rest = segment.multi ? 'Matches the rest of the path, slashes included.' : '';
    const description = [comments.of(field), rest].filter(Boolean).join('\n\n');
    parameters.push({
      name: segment.fieldPath,
      in: 'path',
      required: true,
      schema: withDescription(singularSchema(field) ?? { type: 'string' }, description),
    });
  }
  return parameters;
}

export function queryParameters(route: HttpRoute, comments: CommentIndex): Parameter[] {
  if (route.body === '*') return [];
  const bound = new Set<string>([route.body]);
  for (const segment of route.segments) {
    if (segment.kind === 'variable') bound.add(segment.fieldPath.split('.')[0] as string);
  }
  const fields = route.method.input.fields.filter((field) => !bound.has(field.name));
  const seen = new Set([route.method.input.typeName]);
  return fields.flatMap((field) => fieldParameters(field, '', comments, seen));
}

/**
 * The parameters of one field: itself when it is a scalar, an enum or a list of scalars; its
 * own fields, prefixed, when it is an ordinary message. Maps, lists of messages or enums, and
 * well-known types have no query form in the gateway and are left out.
 */
function fieldParameters(
  field: DescField,
  prefix: string,
  comments: CommentIndex,
  seen: ReadonlySet<string>,
): Parameter[] {
  const name = prefix + field.jsonName;
  const description = comments.of(field);
  const singular = singularSchema(field);
  if (singular) return [{ name, in: 'query', schema: withDescription(singular, description) }];
  if (field.fieldKind === 'list' && field.listKind === 'scalar') {
    const schema: Schema = { type: 'array', items: scalarSchema(field.scalar) };
    return [{ name, in: 'query', schema: withDescription(schema, description) }];
  }
  const message = field.fieldKind === 'message' ? field.message : undefined;
  // A message that contains itself would expand forever; its inner occurrences are left out.
  if (!message || wellKnownSchema(message) || seen.has(message.typeName)) return [];
  const inner = new Set([...seen, message.typeName]);
  return message.fields.flatMap((nested) => fieldParameters(nested, `${name}.`, comments, inner));
}

function singularSchema(field: DescField): Schema | undefined {
  if (field.fieldKind === 'scalar') return scalarSchema(field.scalar);
  if (field.fieldKind === 'enum') return enumSchema(field.enum);
  return undefined;
}

/** The field a dotted template variable names; a variable naming no field is a contract error. */
function resolveFieldPath(message: DescMessage, fieldPath: string): DescField {
  const [head, ...rest] = fieldPath.split('.');
  const field = message.fields.find((f) => f.name === head);
  if (!field)
    throw new Error(`${message.typeName} has no field "${head}" (path variable ${fieldPath})`);
  if (rest.length === 0) return field;
  if (field.fieldKind !== 'message') {
    throw new Error(`${message.typeName}.${head} is not a message (path variable ${fieldPath})`);
  }
  return resolveFieldPath(field.message, rest.join('.'));
}
