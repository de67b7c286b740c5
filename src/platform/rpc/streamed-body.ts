/**
 * A raw request body handed to a service as it arrives (RPCs with the `streamed_body` option,
 * media uploads): the REST gateway puts it in the call's context values, and the service reads
 * it instead of the request's `bytes` field.
 */
import { createContextKey } from '@connectrpc/connect';

export interface StreamedBody {
  /** The request's `Content-Type`. */
  readonly contentType: string;
  /** The declared `Content-Length`, when the client sent one. */
  readonly declaredLength: number | undefined;
  readonly chunks: AsyncIterable<Uint8Array>;
}

export const streamedBodyKey = createContextKey<StreamedBody | undefined>(undefined, { description: 'streamed request body' });
