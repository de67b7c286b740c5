/**
 * Message schemas: every message an operation uses becomes a component named by its
 * fully-qualified type name (unique by construction), with its JSON field names as
 * properties and the proto comments as descriptions.
 */
import type { DescField, DescMessage } from '@bufbuild/protobuf';
import type { CommentIndex } from './comments.js';
import type { Schema, SchemaOrRef } from './openapi-types.js';
import { enumSchema, scalarSchema } from './scalar-schemas.js';
import { wellKnownSchema } from './well-known-schemas.js';

export const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

export class MessageSchemas {
  private readonly components = new Map<string, Schema>();

  constructor(private readonly comments: CommentIndex) {}

  /** A reference to the message's component (added on first use), or its inline well-known schema. */
  schemaOf(message: DescMessage): SchemaOrRef {
    const wellKnown = wellKnownSchema(message);
    if (wellKnown) return wellKnown;
    if (!this.components.has(message.typeName)) {
      // Registered before its fields are walked, so that recursive messages end in a $ref.
      this.components.set(message.typeName, {});
      this.components.set(message.typeName, this.objectSchema(message));
    }
    return schemaRef(message.typeName);
  }

  /** The message as an inline object, without the named fields (those bound to the path). */
  objectSchema(message: DescMessage, omit: ReadonlySet<string> = new Set()): Schema {
    const properties: Record<string, SchemaOrRef> = {};
    for (const field of message.fields) {
      if (!omit.has(field.name)) properties[field.jsonName] = this.fieldSchema(field);
    }
    return withDescription({ type: 'object', properties }, this.comments.of(message));
  }

  fieldSchema(field: DescField): SchemaOrRef {
    return withDescription(this.valueSchema(field), this.comments.of(field));
  }

  /** Every component used so far, sorted by name for a stable document. */
  all(): Record<string, Schema> {
    return Object.fromEntries([...this.components].sort(([a], [b]) => a.localeCompare(b)));
  }

  private valueSchema(field: DescField): SchemaOrRef {
    // JSON object keys are strings whatever the proto map key type.
    if (field.fieldKind === 'map')
      return { type: 'object', additionalProperties: this.elementSchema(field) };
    if (field.fieldKind === 'list') return { type: 'array', items: this.elementSchema(field) };
    return this.elementSchema(field);
  }

  /** The schema of one value: the field itself, a list element or a map value. */
  private elementSchema(field: DescField): SchemaOrRef {
    if (field.message) return this.schemaOf(field.message);
    if (field.enum) return enumSchema(field.enum);
    return scalarSchema(field.scalar);
  }
}

/**
 * OpenAPI 3.0 ignores siblings of `$ref`, so a described reference is wrapped in `allOf`.
 */
export function withDescription(schema: Schema, description: string): Schema;
export function withDescription(schema: SchemaOrRef, description: string): SchemaOrRef;
export function withDescription(schema: SchemaOrRef, description: string): SchemaOrRef {
  if (!description) return schema;
  if ('$ref' in schema) return { allOf: [schema], description };
  return {
    ...schema,
    description: schema.description ? `${description}\n\n${schema.description}` : description,
  };
}
