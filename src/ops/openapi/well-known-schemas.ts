/**
 * Messages the protobuf JSON mapping prints as something other than an object of their
 * fields (Timestamp as an RFC 3339 string, Struct as any JSON object, wrappers as nullable
 * scalars...). They are inlined where used instead of becoming components.
 */
import type { DescMessage } from '@bufbuild/protobuf';
import type { Schema } from './openapi-types.js';
import { scalarSchema } from './scalar-schemas.js';

const SPECIAL: Readonly<Record<string, Schema>> = {
  'google.protobuf.Struct': { type: 'object', additionalProperties: true },
  'google.protobuf.Value': { nullable: true, description: 'Any JSON value.' },
  'google.protobuf.ListValue': { type: 'array', items: { nullable: true } },
  'google.protobuf.Timestamp': { type: 'string', format: 'date-time' },
  'google.protobuf.Duration': { type: 'string', example: '1.5s' },
  'google.protobuf.FieldMask': { type: 'string', example: 'field_a,field_b.sub' },
  'google.protobuf.Empty': { type: 'object' },
  'google.protobuf.Any': {
    type: 'object',
    properties: { '@type': { type: 'string' } },
    additionalProperties: true,
  },
};

const WRAPPERS = new Set(
  ['Double', 'Float', 'Int64', 'UInt64', 'Int32', 'UInt32', 'Bool', 'String', 'Bytes'].map(
    (name) => `google.protobuf.${name}Value`,
  ),
);

/** The inline schema of a well-known type, or undefined for an ordinary message. */
export function wellKnownSchema(message: DescMessage): Schema | undefined {
  const special = SPECIAL[message.typeName];
  if (special) return special;
  const value = message.fields[0];
  if (WRAPPERS.has(message.typeName) && value?.fieldKind === 'scalar') {
    return { ...scalarSchema(value.scalar), nullable: true };
  }
  return undefined;
}
