/**
 * The public API as the running service sees it: every service of the generated `service.v1`
 * package, discovered from the generated file index rather than listed by hand.
 */
import type { DescMethod, DescService } from '@bufbuild/protobuf';
import { getOption, hasOption } from '@bufbuild/protobuf';
import { apiFiles } from '../../gen/api-files.js';
import {
  access,
  max_request_bytes,
  rate_limit,
  streamed_body,
} from '../../gen/service/v1/options_pb.js';
import type { Access, RateLimit } from '../../gen/service/v1/options_pb.js';

export const apiServices: readonly DescService[] = apiFiles.flatMap((file) => file.services);

export function findApiService(typeName: string): DescService | undefined {
  return apiServices.find((service) => service.typeName === typeName);
}

// Reading an option decodes it from the descriptor (about 10 µs): each is read once per method.
const accessRules = new WeakMap<DescMethod, Access | undefined>();
const rateLimits = new WeakMap<DescMethod, RateLimit | undefined>();
const bodyLimits = new WeakMap<DescMethod, number | undefined>();
const streamedBodies = new WeakMap<DescMethod, boolean>();

/** The declared access rule of an RPC, or undefined when it takes the default (authenticated). */
export function accessOf(method: DescMethod): Access | undefined {
  if (!accessRules.has(method))
    accessRules.set(method, hasOption(method, access) ? getOption(method, access) : undefined);
  return accessRules.get(method);
}

/** The declared per-endpoint token bucket of an RPC, or undefined for the default bucket. */
export function rateLimitOf(method: DescMethod): RateLimit | undefined {
  if (!rateLimits.has(method))
    rateLimits.set(
      method,
      hasOption(method, rate_limit) ? getOption(method, rate_limit) : undefined,
    );
  return rateLimits.get(method);
}

/** The RPC's own request body limit (`max_request_bytes`), or undefined for the server's default. */
export function maxRequestBytesOf(method: DescMethod): number | undefined {
  if (!bodyLimits.has(method))
    bodyLimits.set(
      method,
      hasOption(method, max_request_bytes) ? getOption(method, max_request_bytes) : undefined,
    );
  return bodyLimits.get(method);
}

/** Whether the RPC takes a raw, streamed request body over REST (`streamed_body`). */
export function takesStreamedBody(method: DescMethod): boolean {
  if (!streamedBodies.has(method))
    streamedBodies.set(
      method,
      hasOption(method, streamed_body) && getOption(method, streamed_body),
    );
  return streamedBodies.get(method) === true;
}
