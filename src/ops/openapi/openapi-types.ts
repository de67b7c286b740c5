/**
 * The subset of the OpenAPI 3.0.3 object model this generator emits. Typed so that a
 * misspelt key is a compile error rather than a silently ignored member of the document.
 */
export interface Reference {
  readonly $ref: string;
}

export interface Schema {
  readonly type?: 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean';
  readonly format?: string;
  readonly description?: string;
  readonly properties?: Record<string, SchemaOrRef>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean | SchemaOrRef;
  readonly items?: SchemaOrRef;
  readonly enum?: readonly unknown[];
  readonly nullable?: boolean;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly allOf?: readonly SchemaOrRef[];
  readonly oneOf?: readonly SchemaOrRef[];
  readonly example?: unknown;
}

export type SchemaOrRef = Schema | Reference;

export interface Parameter {
  readonly name: string;
  readonly in: 'path' | 'query';
  readonly required?: boolean;
  readonly description?: string;
  readonly schema: SchemaOrRef;
}

export interface Header {
  readonly description: string;
  readonly schema: Schema;
}

export interface MediaType {
  readonly schema: SchemaOrRef;
  readonly examples?: Record<string, { readonly summary?: string; readonly value: unknown }>;
}

export type Content = Record<string, MediaType>;

export interface Response {
  readonly description: string;
  readonly headers?: Record<string, Header | Reference>;
  readonly content?: Content;
}

export interface RequestBody {
  readonly required?: boolean;
  readonly content: Content;
}

/** Alternatives: any one requirement of the list satisfies the operation; `[]` means public. */
export type SecurityRequirements = readonly Record<string, readonly string[]>[];

export interface Operation {
  readonly operationId: string;
  readonly tags: readonly string[];
  readonly summary?: string;
  readonly description?: string;
  readonly deprecated?: boolean;
  readonly security?: SecurityRequirements;
  readonly parameters?: readonly Parameter[];
  readonly requestBody?: RequestBody;
  readonly responses: Record<string, Response | Reference>;
}

export type OperationMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export type SecurityScheme =
  | {
      readonly type: 'http';
      readonly scheme: 'bearer';
      readonly bearerFormat: string;
      readonly description: string;
    }
  | {
      readonly type: 'apiKey';
      readonly in: 'header' | 'cookie';
      readonly name: string;
      readonly description: string;
    };

export interface OpenApiDocument {
  readonly openapi: '3.0.3';
  readonly info: {
    readonly title: string;
    readonly version: string;
    readonly description?: string;
  };
  readonly tags: readonly { readonly name: string; readonly description?: string }[];
  readonly security: SecurityRequirements;
  readonly paths: Record<string, Partial<Record<OperationMethod, Operation>>>;
  readonly components: {
    readonly schemas: Record<string, Schema>;
    readonly responses: Record<string, Response>;
    readonly headers: Record<string, Header>;
    readonly securitySchemes: Record<string, SecurityScheme>;
  };
}
