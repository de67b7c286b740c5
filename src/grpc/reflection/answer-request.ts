/**
 * Answers one server reflection request (https://github.com/grpc/grpc/blob/master/doc/server-reflection.md),
 * in the v1 message types; v1alpha requests are translated to them (see reflection-services.ts).
 * Lookups that find nothing answer an error_response with NOT_FOUND and keep the stream open,
 * as the protocol asks.
 */
import { create } from '@bufbuild/protobuf';
import type { DescFile, MessageInitShape } from '@bufbuild/protobuf';
import { Code } from '@connectrpc/connect';
import { ServerReflectionResponseSchema } from '../../gen/grpc/reflection/v1/reflection_pb.js';
import type {
  ServerReflectionRequest,
  ServerReflectionResponse,
} from '../../gen/grpc/reflection/v1/reflection_pb.js';
import type { DescriptorIndex } from './descriptor-index.js';

type MessageResponse = MessageInitShape<typeof ServerReflectionResponseSchema>['messageResponse'];

export function answerRequest(
  index: DescriptorIndex,
  serviceNames: readonly string[],
  request: ServerReflectionRequest,
): ServerReflectionResponse {
  return create(ServerReflectionResponseSchema, {
    validHost: request.host,
    originalRequest: request,
    messageResponse: messageResponse(index, serviceNames, request.messageRequest),
  });
}

function messageResponse(
  index: DescriptorIndex,
  serviceNames: readonly string[],
  request: ServerReflectionRequest['messageRequest'],
): MessageResponse {
  switch (request.case) {
    case 'listServices':
      return {
        case: 'listServicesResponse',
        value: { service: serviceNames.map((name) => ({ name })) },
      };
    case 'fileByFilename':
      return files(index, index.fileByName(request.value), `file ${request.value}`);
    case 'fileContainingSymbol':
      return files(index, index.fileContainingSymbol(request.value), `symbol ${request.value}`);
    case 'fileContainingExtension': {
      const { containingType, extensionNumber } = request.value;
      const file = index.fileContainingExtension(containingType, extensionNumber);
      return files(index, file, `extension ${extensionNumber} of ${containingType}`);
    }
    case 'allExtensionNumbersOfType': {
      const numbers = index.extensionNumbers(request.value);
      if (!numbers) return notFound(`type ${request.value}`);
      return {
        case: 'allExtensionNumbersResponse',
        value: { baseTypeName: request.value, extensionNumber: numbers },
      };
    }
    case undefined:
      return {
        case: 'errorResponse',
        value: { errorCode: Code.InvalidArgument, errorMessage: 'the request names no lookup' },
      };
  }
}

function files(index: DescriptorIndex, file: DescFile | undefined, what: string): MessageResponse {
  if (!file) return notFound(what);
  return {
    case: 'fileDescriptorResponse',
    value: { fileDescriptorProto: index.withDependencies(file) },
  };
}

function notFound(what: string): MessageResponse {
  return {
    case: 'errorResponse',
    value: { errorCode: Code.NotFound, errorMessage: `${what} not found` },
  };
}
