/**
 * The API side of a process with a store (roles all and api): it opens the key directory (a
 * DHT node) with the keys area's record rules, builds the areas (api-areas.ts), runs the mirror
 * keeper over their shared-state mirrors (complete before the first request is served) and
 * starts their background tasks, then wraps the services in the RPC pipeline for the REST
 * gateway and starts the gRPC server.
 */
import { RestGateway } from '../gateway/rest-gateway.js';
import { buildRouteTable } from '../gateway/routing/route-table.js';
import type { HttpRoute } from '../gateway/routing/route-table.js';
import { startGrpcServer } from '../grpc/grpc-server.js';
import type { RunningGrpcServer } from '../grpc/grpc-server.js';
import { ContractWallets } from '../identity/wallet/contract-wallets.js';
import type { ContractSignatureVerifier } from '../identity/wallet/contract-signature-verifier.js';
import { recoverPersonalSignAddress } from '../identity/wallet/eip191.js';
import { WalletSignatures } from '../identity/wallet/wallet-signatures.js';
import { KEY_RECORD_NAMESPACE, KeyRecordVerifier } from '../keys/directory/key-record-rules.js';
import { MessagingEvents } from '../events/messaging-events.js';
import { apiServices } from '../platform/api/api-services.js';
import type { Config } from '../platform/config/settings.js';
import { openRecordDirectory } from '../platform/dht/open-record-directory.js';
import type { RecordDirectory } from '../platform/dht/record-directory.js';
import { observeRpc } from '../platform/rpc/observe-rpc.js';
import { traceRpc } from '../platform/rpc/trace-rpc.js';
import { MirrorKeeper } from '../platform/shared-state/mirror-keeper.js';
import type { DocumentStore } from '../platform/store/document-store.js';
import type { ApiAreaPorts } from './api-area-ports.js';
import { buildApiAreas } from './api-areas.js';
import type { ApiAreas } from './api-areas.js';
import { buildApiPipeline } from './api-pipeline.js';
import type { BackgroundTask } from './background-task.js';
import { registerGrpcInfrastructure } from './infrastructure-services.js';
import type { ProcessPorts } from './process-ports.js';
import type { SharedParts } from './shared-parts.js';

export interface ApiRole {
  readonly routes: readonly HttpRoute[];
  readonly gateway: RestGateway;
  readonly grpc: RunningGrpcServer;
  readonly mirrors: MirrorKeeper;
  readonly backgroundTasks: readonly BackgroundTask[];
  readonly keyDirectory: RecordDirectory;
}

export async function startApiRole(
  config: Config,
  ports: ProcessPorts,
  shared: SharedParts,
  store: DocumentStore,
): Promise<ApiRole> {
  // Contract wallets (issue #28): one chain verifier per process, shared by every area that
  // checks wallets; key records check bindings on the calling thread (no worker pool).
  const contracts =
    config.wallets.rpcUrls.size > 0 ? new ContractWallets(config.wallets, ports.logger) : undefined;
  const keySignatures = new WalletSignatures(recoverPersonalSignAddress, contracts);
  const keyRecords = new KeyRecordVerifier(config.service.name, undefined, keySignatures);
  const keyDirectory = await openRecordDirectory({
    settings: config.keys,
    host: config.http.host,
    namespace: KEY_RECORD_NAMESPACE,
    rules: keyRecords.rules(),
    logger: ports.logger,
  });
  const areas = await buildApiAreas(
    apiAreaPortsOf(config, ports, shared, {
      store,
      keyDirectory,
      keyRecords,
      wallets: { contracts, keySignatures },
    }),
  );
  // Before serving: the security mirrors in shared state are complete (or being repaired).
  const mirrors = new MirrorKeeper(ports.sharedState, areas.mirrors, ports.logger, ports.outages, {
    // In-process shared state lives and dies with the process: only Redis can lose the mirrors.
    keepChecking: config.sharedState.redisUrl !== undefined,
  });
  await mirrors.start();
  await Promise.all(areas.backgroundTasks.map((task) => task.start()));
  const routes = buildRouteTable(apiServices);
  const { gateway, grpc } = await serveApi(config, ports, shared, areas, routes);
  return { routes, gateway, grpc, mirrors, backgroundTasks: areas.backgroundTasks, keyDirectory };
}

/** The RPC pipeline (its span, observation, limits before authentication, authentication, limits after it) behind the REST gateway and the gRPC server. */
async function serveApi(
  config: Config,
  ports: ProcessPorts,
  shared: SharedParts,
  areas: ApiAreas,
  routes: readonly HttpRoute[],
) {
  const { limits } = shared;
  const middlewares = [
    traceRpc(),
    observeRpc(ports.metrics, ports.outages),
    ...limits.beforeAuthentication,
    areas.authentication,
    ...limits.afterAuthentication,
  ];
  const pipeline = buildApiPipeline(areas.implementations, middlewares);
  const gateway = new RestGateway(routes, pipeline.handlersByMethod, {
    legacySunset: config.http.legacySunset,
  });
  const grpc = await startGrpcServer({
    host: config.http.host,
    port: config.http.grpcPort,
    logger: ports.logger,
    maxBodyBytes: config.http.maxBodyBytes,
    trustedProxies: config.http.trustedProxies,
    routes: (router) => {
      pipeline.register(router);
      registerGrpcInfrastructure(router, ports.readiness);
    },
  });
  return { gateway, grpc };
}

interface KeyDirectoryPorts {
  readonly store: DocumentStore;
  readonly keyDirectory: RecordDirectory;
  readonly keyRecords: KeyRecordVerifier;
  readonly wallets: {
    readonly contracts: ContractSignatureVerifier | undefined;
    readonly keySignatures: WalletSignatures;
  };
}

function apiAreaPortsOf(
  config: Config,
  ports: ProcessPorts,
  shared: SharedParts,
  { store, keyDirectory, keyRecords, wallets }: KeyDirectoryPorts,
): ApiAreaPorts {
  return {
    config,
    store,
    sharedState: ports.sharedState,
    logger: ports.logger,
    verification: shared.verification,
    wsTickets: shared.wsTickets,
    blockMirror: shared.blockMirror,
    events: new MessagingEvents(shared.userEvents, ports.logger),
    userEvents: shared.userEvents,
    userConnections: shared.userConnections,
    channelPosts: shared.channelPosts,
    channelFollows: shared.channelFollows,
    sessionConnections: shared.sessionConnections,
    pushQueue: shared.pushQueue,
    wakeUps: shared.wakeUps,
    pushMetrics: shared.pushMetrics,
    frontendErrors: shared.frontendErrors,
    smsNumberLimiter: shared.limits.smsNumberLimiter,
    keyDirectory,
    keyRecords,
    wallets,
    keysMetrics: shared.keysMetrics,
    locationMetrics: shared.locationMetrics,
    accountWalkMetrics: shared.accountWalkMetrics,
    mediaMetrics: shared.mediaMetrics,
    outages: ports.outages,
  };
}
