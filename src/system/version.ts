import type { MessageInitShape } from '@bufbuild/protobuf';
import type { HandlerContext } from '@connectrpc/connect';
import type { GetVersionResponseSchema } from '../gen/service/v1/system_pb.js';
import { CURRENT, SUPPORTED_VERSIONS } from '../platform/api/api-versions.js';
import { callInfoOf } from '../platform/rpc/call-context.js';

/** GET /api/version: the generation that served this request (RPC transports are always current). */
export function getVersion(
  _: unknown,
  context: HandlerContext,
): MessageInitShape<typeof GetVersionResponseSchema> {
  const generation = callInfoOf(context).generation ?? CURRENT;
  return {
    success: true,
    message: 'API version information',
    data: {
      version: generation.version,
      deprecated: generation.deprecated,
      supportedVersions: [...SUPPORTED_VERSIONS],
      currentPath: CURRENT.prefix,
    },
  };
}
