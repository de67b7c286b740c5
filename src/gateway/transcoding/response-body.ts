/**
 * Encodes an RPC response for REST: the spec's JSON (JSON names, defaults always printed,
 * 32-bit integers and doubles as numbers), or raw bytes for google.api.HttpBody.
 */
import { create, toJsonString } from '@bufbuild/protobuf';
import type { DescMessage, MessageInitShape } from '@bufbuild/protobuf';
import type { HttpRoute } from '../routing/route-table.js';

export interface EncodedBody {
  readonly contentType: string;
  readonly body: string | Uint8Array;
}

export const HTTP_BODY = 'google.api.HttpBody';

export function responseBody(route: HttpRoute, init: MessageInitShape<DescMessage>): EncodedBody {
  const schema = route.method.output;
  const message = create(schema, init);
  if (schema.typeName === HTTP_BODY) {
    const httpBody = message as unknown as { contentType: string; data: Uint8Array };
    return { contentType: httpBody.contentType || 'application/octet-stream', body: httpBody.data };
  }
  return {
    contentType: 'application/json',
    body: toJsonString(schema, message, { alwaysEmitImplicit: true }),
  };
}
