/**
 * A unary gRPC call that keeps everything a native client sees: the response (or the
 * ServiceError), the response headers (the call's `metadata` event: `set-cookie` travels there)
 * and the final status with its trailing metadata (the `status` event: `x-error-code` travels
 * there on failures).
 */
import { grpc } from '../../support/grpc-client.js';
import type { GrpcServiceClient } from '../../support/grpc-client.js';
import type { Json } from '../../support/json.js';

export interface GrpcOutcome<T = Json> {
  /** The response message, or undefined when the call failed. */
  response?: T;
  /** The ServiceError, or undefined when the call succeeded. */
  error?: grpc.ServiceError;
  /** The response headers (initial metadata); empty when the server sent none. */
  headers: grpc.Metadata;
  /** The final status, with the trailing metadata. */
  status: grpc.StatusObject;
}

export function call<T = Json>(
  client: GrpcServiceClient,
  method: string,
  request: object,
  metadata: Record<string, string> = {},
): Promise<GrpcOutcome<T>> {
  const sent = new grpc.Metadata();
  for (const [key, value] of Object.entries(metadata)) sent.set(key, value);
  return new Promise((resolve) => {
    let headers = new grpc.Metadata();
    let result: { response?: T; error?: grpc.ServiceError } | undefined;
    let status: grpc.StatusObject | undefined;
    const settle = () => {
      if (result && status) resolve({ ...result, headers, status });
    };
    const pending = client[method]!(
      request,
      sent,
      (error: grpc.ServiceError | null, response: T) => {
        result = error ? { error } : { response };
        settle();
      },
    );
    pending.on('metadata', (received: grpc.Metadata) => {
      headers = received;
    });
    pending.on('status', (received: grpc.StatusObject) => {
      status = received;
      settle();
    });
  });
}

/** Resolves with the response, or rejects with an Error describing the status and reason. */
export async function ok<T = Json>(
  client: GrpcServiceClient,
  method: string,
  request: object,
  metadata: Record<string, string> = {},
): Promise<GrpcOutcome<T> & { response: T }> {
  const outcome = await call<T>(client, method, request, metadata);
  if (outcome.error) {
    throw new Error(
      `${method} failed: ${grpc.status[outcome.error.code]} ${outcome.error.metadata.get('x-error-code').join(',')} ${outcome.error.details}`,
    );
  }
  return outcome as GrpcOutcome<T> & { response: T };
}

/** The gRPC code name and the machine reason (`x-error-code` trailer) of a failed call. */
export function failure(outcome: GrpcOutcome): {
  code: string;
  reason: string | undefined;
  details: string;
} {
  if (!outcome.error)
    throw new Error(
      `expected the call to fail, it succeeded with ${JSON.stringify(outcome.response)}`,
    );
  const reason = outcome.status.metadata.get('x-error-code')[0];
  return {
    code: grpc.status[outcome.error.code],
    reason: reason === undefined ? undefined : String(reason),
    details: outcome.error.details,
  };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** `name` → `value` of the `set-cookie` response headers, and the raw lines. */
export function setCookies(headers: grpc.Metadata): {
  lines: string[];
  values: Record<string, string>;
} {
  const lines = headers.get('set-cookie').map(String);
  const values = Object.fromEntries(
    lines.map((line) => {
      const pair = line.split(';')[0]!;
      const at = pair.indexOf('=');
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
  return { lines, values };
}
