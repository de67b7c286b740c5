/**
 * Raw bodies that pass between the REST gateway and a service without being held whole:
 * a request body handed to the service as it arrives (RPCs with the `streamed_body` option,
 * media uploads), which the service reads instead of the request's `bytes` field; and, for
 * RPCs answering `google.api.HttpBody`, a place where the service may leave a response body
 * of known length to be streamed (media downloads). Both travel in the call's context values
 * and exist only over REST; over gRPC the bytes are in the messages.
 */
import { createContextKey } from '@connectrpc/connect';

export interface StreamedBody {
  /** The request's `Content-Type`. */
  readonly contentType: string;
  /** The declared `Content-Length`, when the client sent one. */
  readonly declaredLength: number | undefined;
  readonly chunks: AsyncIterable<Uint8Array>;
}

export const streamedBodyKey = createContextKey<StreamedBody | undefined>(undefined, {
  description: 'streamed request body',
});

export interface StreamedResponse {
  /** Set by the service: the body, then sent instead of the HttpBody's `data`. */
  body?: { readonly length: number; readonly chunks: AsyncIterable<Uint8Array> };
}

export const streamedResponseKey = createContextKey<StreamedResponse | undefined>(undefined, {
  description: 'streamed response body',
});
