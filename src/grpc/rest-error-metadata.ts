/**
 * Failed RPCs carry their REST rendering, for the Envoy edge. Envoy's gRPC-JSON transcoder maps
 * grpc-status to a fixed HTTP status (no gRPC code means 410) and cannot print the spec's
 * envelope, so the api pods render each error once, exactly as the in-process gateway does
 * (renderError), and send the status and the envelope as error metadata (gRPC trailers):
 * `x-http-status` and `x-error-envelope`. envoy/error-envelope.lua puts them in place and drops
 * them; native gRPC clients can ignore them.
 */
import { Code, ConnectError } from '@connectrpc/connect';
import type { Interceptor } from '@connectrpc/connect';
import { HTTP_STATUS_HEADER } from '../platform/errors/api-error.js';
import { renderError } from '../platform/errors/http-status.js';

export const ERROR_ENVELOPE_HEADER = 'x-error-envelope';

export const restErrorMetadata: Interceptor = (next) => async (request) => {
  try {
    return await next(request);
  } catch (error) {
    throw withRestRendering(error);
  }
};

/** The error as Connect would send it (anything else is an internal error), with its rendering added. */
export function withRestRendering(error: unknown): ConnectError {
  const rendered = renderError(error);
  const connectError =
    error instanceof ConnectError
      ? error
      : new ConnectError('internal error', Code.Internal, undefined, undefined, error);
  connectError.metadata.set(HTTP_STATUS_HEADER, String(rendered.status));
  connectError.metadata.set(ERROR_ENVELOPE_HEADER, asciiJson(rendered.body));
  return connectError;
}

/** JSON with every non-ASCII character escaped: metadata values must be printable ASCII. */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
