/**
 * The areas that get things to users' devices: the keys (directory and bundles), the relay of
 * sealed-sender envelopes, and browser push.
 */
import type { AreaEvents } from '../events/area-events.js';
import type { IdentityAreas } from './identity-wiring.js';
import { createKeysArea } from '../keys/keys-area.js';
import { createPushArea } from '../push/push-area.js';
import { createRelayArea } from '../relay/relay-area.js';
import type { ApiAreaPorts } from './api-area-ports.js';

export async function buildDeliveryAreas(
  ports: ApiAreaPorts,
  { accounts, identity, phone }: IdentityAreas,
  areaEvents: AreaEvents,
) {
  const { config, store, sharedState, logger } = ports;
  const keys = await createKeysArea({
    serviceName: config.service.name,
    verifier: ports.keyRecords,
    store,
    sharedState,
    directory: ports.keyDirectory,
    registrations: phone.phoneAccounts,
    isRetired: (address) => accounts.retiredWallets.isRetired(address),
    metrics: ports.keysMetrics,
    logger,
  });
  const relay = await createRelayArea({
    settings: config.relay,
    dataDir: config.store.dataDir,
    store,
    sharedState,
    events: ports.userEvents,
    connections: ports.userConnections,
    accounts: accounts.accounts,
    bundles: keys.bundles,
    logger,
    outages: ports.outages,
    wakeUps: ports.wakeUps,
  });
  const push = await createPushArea({
    settings: config.push,
    dataDir: config.store.dataDir,
    store,
    sharedState,
    queue: ports.pushQueue,
    connections: ports.sessionConnections,
    activeSessionsOf: async (address) =>
      (await identity.sessions.listActive(address)).map((session) => session._id),
    sessionEnded: areaEvents.sessionEnded,
    metrics: ports.pushMetrics,
    logger,
    outages: ports.outages,
  });
  return { keys, relay, push };
}

export type DeliveryAreas = Awaited<ReturnType<typeof buildDeliveryAreas>>;
