/**
 * The areas of a process that serves the API, built in dependency order and connected: each
 * area's factory names the ports and sibling parts it uses (its `…Dependencies` type) and gets
 * exactly those when it is built; nothing is patched in afterwards. Read top to bottom:
 *
 *   identity ─► foundation (contacts, conversations, presence, media library)
 *   ─► conversation areas (profile, channels, messaging, location, groups)
 *   ─► delivery (keys, relay, push) ─► content (polls, stickers, stories, media service)
 *   ─► account areas (recovery's records, account life over every area's records, recovery)
 *   ─► the implementation of each API service, the mirrors and the background tasks.
 *
 * Where two areas would need each other, the cycle is broken where the areas are built, with
 * the reason beside it: media in two steps (foundation-areas.ts, content-areas.ts), recovery in
 * two steps (account-areas.ts), polls in two steps (conversation-areas.ts: messaging builds the
 * polls' sending part with its sender), and two in-process events (`areaEvents`, src/events/area-events.ts)
 * for blocks (contacts ─► location) and ended sessions (identity ─► push).
 */
import { createAreaEvents } from '../events/area-events.js';
import type { AccountDataOwner } from '../platform/account-data/account-data-owner.js';
import type { PartialServiceImpl, RpcMiddleware } from '../platform/rpc/rpc-pipeline.js';
import type { MirrorSource } from '../platform/shared-state/mirror-keeper.js';
import { buildAccountAreas } from './account-areas.js';
import type { AccountAreas, WalkedAreas } from './account-areas.js';
import type { ApiAreaPorts } from './api-area-ports.js';
import type { BackgroundTask } from './background-task.js';
import { buildContentAreas } from './content-areas.js';
import { buildConversationAreas } from './conversation-areas.js';
import { buildDeliveryAreas } from './delivery-areas.js';
import { buildFoundationAreas } from './foundation-areas.js';
import { buildIdentityAreas } from './identity-wiring.js';
import { implementationsByService } from './service-implementations.js';

export interface ApiAreas {
  readonly implementations: ReadonlyMap<string, PartialServiceImpl>;
  /** Identity's authentication middleware, for the RPC pipeline. */
  readonly authentication: RpcMiddleware;
  /** The areas' shared-state mirrors of the store (ended sessions, blocks, channel follows), for the mirror keeper. */
  readonly mirrors: readonly MirrorSource[];
  /**
   * Identity's signer pool, messaging's sweeper of messages left unannounced, channels' logger
   * of post changes left unlogged (reaction counts, batched), the keys area's
   * re-publisher of key records, the relay's drains on connection announcements, the location
   * area's sweeper of expired sessions, the resumer of account walks, the push dispatcher, the
   * media sweeper and the resumer of group creations.
   */
  readonly backgroundTasks: readonly BackgroundTask[];
  /**
   * Every area's records keyed by a wallet address, in the order recovery moves them and
   * deletion removes them (identity last: the account record is what marks the walk done).
   */
  readonly accountData: readonly AccountDataOwner[];
}

export async function buildApiAreas(ports: ApiAreaPorts): Promise<ApiAreas> {
  // Announced by one area, heard by those that subscribe while they are built (area-events.ts).
  const areaEvents = createAreaEvents();
  const identityAreas = await buildIdentityAreas(ports, areaEvents);
  const { identity } = identityAreas;
  const foundation = await buildFoundationAreas(ports, identityAreas, areaEvents);
  const conversation = await buildConversationAreas(ports, identityAreas, foundation, areaEvents);
  const delivery = await buildDeliveryAreas(ports, identityAreas, areaEvents);
  const content = await buildContentAreas(ports, identityAreas, foundation, conversation);
  const walked: WalkedAreas = { ...foundation, ...conversation, ...delivery, ...content };
  const accountAreas = await buildAccountAreas(ports, identityAreas, walked);
  const areas = { ...walked, ...accountAreas };
  return {
    authentication: identity.authentication,
    mirrors: [identity.mirror, areas.contacts.mirror, areas.channels.mirror],
    backgroundTasks: [identity.signers, ...backgroundTasksOf(areas)],
    accountData: accountAreas.accountData,
    implementations: implementationsByService(identityAreas, areas, ports.frontendErrors),
  };
}

/** The other areas' own work, besides identity's signer pool. */
function backgroundTasksOf(areas: WalkedAreas & AccountAreas): BackgroundTask[] {
  return [
    areas.messaging.announcementSweeper,
    areas.channels.changeSweeper,
    areas.keys.republisher,
    areas.relay.drains,
    areas.location.expirySweeper,
    areas.accountLife.resumer,
    areas.push.dispatcher,
    areas.mediaLibrary.background,
    areas.groups.creationResumer,
  ];
}
