/**
 * gRPC server reflection, so that grpcurl, Postman and similar tools can discover and call the
 * API without the proto files. Both protocol versions are served: v1alpha is what many tools
 * still ask for. Their messages are field-for-field identical, so a v1alpha message is turned
 * into its v1 twin through the wire format and answered by the same code.
 */
import { fromBinary, toBinary } from '@bufbuild/protobuf';
import type { DescMessage, MessageShape } from '@bufbuild/protobuf';
import type { FileDescriptorSet } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import { Health } from '../../gen/grpc/health/v1/health_pb.js';
import * as v1 from '../../gen/grpc/reflection/v1/reflection_pb.js';
import * as v1alpha from '../../gen/grpc/reflection/v1alpha/reflection_pb.js';
import { apiServices } from '../../platform/api/api-services.js';
import { answerRequest } from './answer-request.js';
import { DescriptorIndex } from './descriptor-index.js';

/** The services the gRPC server registers: the API, health and reflection itself. */
export const reflectedServiceNames: readonly string[] = [
  ...apiServices.map((service) => service.typeName),
  Health.typeName,
  v1.ServerReflection.typeName,
  v1alpha.ServerReflection.typeName,
];

export interface ReflectionServices {
  readonly v1: ServiceImpl<typeof v1.ServerReflection>;
  readonly v1alpha: ServiceImpl<typeof v1alpha.ServerReflection>;
}

export function createReflectionServices(
  descriptorSet: FileDescriptorSet,
  serviceNames: readonly string[] = reflectedServiceNames,
): ReflectionServices {
  const index = new DescriptorIndex(descriptorSet);
  const answer = (request: v1.ServerReflectionRequest) =>
    answerRequest(index, serviceNames, request);
  return {
    v1: { serverReflectionInfo: (requests) => answerEach(requests, answer) },
    v1alpha: {
      serverReflectionInfo: (requests) =>
        answerEach(requests, (request) => {
          const asV1 = convert(
            v1alpha.ServerReflectionRequestSchema,
            v1.ServerReflectionRequestSchema,
            request,
          );
          return convert(
            v1.ServerReflectionResponseSchema,
            v1alpha.ServerReflectionResponseSchema,
            answer(asV1),
          );
        }),
    },
  };
}

async function* answerEach<I, O>(
  requests: AsyncIterable<I>,
  answer: (request: I) => O,
): AsyncGenerator<O> {
  for await (const request of requests) yield answer(request);
}

function convert<From extends DescMessage, To extends DescMessage>(
  from: From,
  to: To,
  message: MessageShape<From>,
): MessageShape<To> {
  return fromBinary(to, toBinary(from, message));
}
