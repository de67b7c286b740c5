/**
 * Schemas of protobuf scalars and enums as the protobuf JSON mapping prints them
 * (https://protobuf.dev/programming-guides/json/): 64-bit integers are strings, bytes are
 * base64 strings, enums are their value names.
 */
import { ScalarType } from '@bufbuild/protobuf';
import type { DescEnum } from '@bufbuild/protobuf';
import type { Schema } from './openapi-types.js';

export function scalarSchema(type: ScalarType): Schema {
  switch (type) {
    case ScalarType.DOUBLE:
      return { type: 'number', format: 'double' };
    case ScalarType.FLOAT:
      return { type: 'number', format: 'float' };
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return { type: 'integer', format: 'int32' };
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return { type: 'integer', format: 'int64', minimum: 0, maximum: 4294967295 };
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return { type: 'string', format: 'int64' };
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return { type: 'string', format: 'uint64' };
    case ScalarType.BOOL:
      return { type: 'boolean' };
    case ScalarType.STRING:
      return { type: 'string' };
    case ScalarType.BYTES:
      return { type: 'string', format: 'byte' };
  }
}

export function enumSchema(desc: DescEnum): Schema {
  return { type: 'string', enum: desc.values.map((value) => value.name) };
}
