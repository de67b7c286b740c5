/**
 * The gRPC health protocol (https://github.com/grpc/grpc/blob/master/doc/health-checking.md),
 * for load balancers and orchestrators. The service "" is the whole server; each API service is
 * known by its fully-qualified name. Any other name is unknown: Check answers NOT_FOUND, List
 * leaves it out, and Watch sends SERVICE_UNKNOWN and keeps the call open, as the protocol asks.
 */
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import type { ServiceImpl } from '@connectrpc/connect';
import { setTimeout as delay } from 'node:timers/promises';
import {
  Health,
  HealthCheckResponse_ServingStatus,
  HealthCheckResponseSchema,
} from '../../gen/grpc/health/v1/health_pb.js';
import type { HealthCheckResponse } from '../../gen/grpc/health/v1/health_pb.js';
import { apiServices } from '../../platform/api/api-services.js';

export type ServingState = 'SERVING' | 'NOT_SERVING' | 'SERVICE_UNKNOWN';

/** Reports the state of the server ("") or of one API service, by fully-qualified name. */
export type HealthCheck = (service: string) => ServingState | Promise<ServingState>;

/** Watch has no push source, so it samples the check at this interval and sends changes. */
const WATCH_INTERVAL_MS = 1000;

export function createHealthService(check: HealthCheck): ServiceImpl<typeof Health> {
  const known = ['', ...apiServices.map((service) => service.typeName)];
  const stateOf = async (service: string): Promise<ServingState> => {
    if (!known.includes(service)) return 'SERVICE_UNKNOWN';
    try {
      return await check(service);
    } catch {
      // A check that cannot tell is a failed check: report the service as not serving.
      return 'NOT_SERVING';
    }
  };

  return {
    async check(request) {
      const state = await stateOf(request.service);
      if (state === 'SERVICE_UNKNOWN')
        throw new ConnectError(`unknown service "${request.service}"`, Code.NotFound);
      return response(state);
    },

    async *watch(request, context) {
      let last: ServingState | undefined;
      while (!context.signal.aborted) {
        const state = await stateOf(request.service);
        if (state !== last) yield response(state);
        last = state;
        // Rejects when the call ends; the loop condition then stops the stream.
        await delay(WATCH_INTERVAL_MS, undefined, { signal: context.signal }).catch(
          () => undefined,
        );
      }
    },

    async list() {
      const statuses: Record<string, HealthCheckResponse> = {};
      for (const service of known) {
        const state = await stateOf(service);
        if (state !== 'SERVICE_UNKNOWN') statuses[service] = response(state);
      }
      return { statuses };
    },
  };
}

function response(state: ServingState): HealthCheckResponse {
  return create(HealthCheckResponseSchema, { status: HealthCheckResponse_ServingStatus[state] });
}
