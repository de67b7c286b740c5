/**
 * What the service offers besides the API itself: gRPC health and reflection on the RPC port,
 * and the Swagger UI with the generated OpenAPI document on the HTTP port.
 */
import type { ConnectRouter } from '@connectrpc/connect';
import { Health } from '../gen/grpc/health/v1/health_pb.js';
import * as reflectionV1 from '../gen/grpc/reflection/v1/reflection_pb.js';
import * as reflectionV1alpha from '../gen/grpc/reflection/v1alpha/reflection_pb.js';
import type { HttpRoute } from '../gateway/routing/route-table.js';
import { createHealthService } from '../grpc/health/health-service.js';
import { createReflectionServices } from '../grpc/reflection/reflection-services.js';
import { buildOpenApiDocument } from '../ops/openapi/document.js';
import type { Readiness } from '../ops/readiness.js';
import { createSwaggerUi } from '../ops/swagger/swagger-ui.js';
import { SESSION_COOKIE } from '../platform/api/cookie-names.js';
import { apiDescriptorSet } from '../platform/api/descriptor-set.js';
import type { HttpResponseData } from '../server/http-message.js';

export function registerGrpcInfrastructure(router: ConnectRouter, readiness: Readiness): void {
  router.service(
    Health,
    createHealthService(async () => ((await readiness.report()).ready ? 'SERVING' : 'NOT_SERVING')),
  );
  const reflection = createReflectionServices(apiDescriptorSet());
  router.service(reflectionV1.ServerReflection, reflection.v1);
  router.service(reflectionV1alpha.ServerReflection, reflection.v1alpha);
}

export function swaggerFor(routes: readonly HttpRoute[]): (path: string) => HttpResponseData {
  const swagger = createSwaggerUi(() =>
    buildOpenApiDocument(routes, apiDescriptorSet(), {
      title: 'Messaging Service API',
      version: 'v1',
      description:
        'REST surface of the messaging service, generated from proto/service/v1. Every /api/v1 path is also served, deprecated, under /api.',
      sessionCookieName: SESSION_COOKIE,
    }),
  );
  return (path) => {
    const response = swagger(path);
    return {
      status: response.status,
      headers: [['Content-Type', response.contentType]],
      body: response.body,
    };
  };
}
