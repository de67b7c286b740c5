/**
 * The areas of a process that serves the API, built in dependency order and connected: each
 * area's factory names the ports and sibling parts it uses, and gets exactly those. Which
 * implementation serves each API service is decided here too (every service of proto/ has
 * one; a method missing from one would still be routed and answer NOT_IMPLEMENTED, HTTP 501).
 */
import type { AccountWalkMetrics } from '../account-lifecycle/account-walk-metrics.js';
import { createAccountLifecycleArea } from '../account-lifecycle/account-lifecycle-area.js';
import { createAdminService } from '../admin/admin-service.js';
import { createChannelsArea } from '../channels/channels-area.js';
import type { BlockMirror } from '../contacts/block-mirror.js';
import { createContactsArea } from '../contacts/contacts-area.js';
import { GroupsService } from '../gen/service/v1/groups_pb.js';
import { createGroupsArea } from '../groups/groups-area.js';
import { AdminService } from '../gen/service/v1/admin_pb.js';
import { AuthService } from '../gen/service/v1/auth_pb.js';
import { ChannelsService } from '../gen/service/v1/channels_pb.js';
import { ContactsService } from '../gen/service/v1/contacts_pb.js';
import { DeviceService } from '../gen/service/v1/device_pb.js';
import { KeysService } from '../gen/service/v1/keys_pb.js';
import { LocationService } from '../gen/service/v1/location_pb.js';
import { MediaService } from '../gen/service/v1/media_pb.js';
import { MessagesService } from '../gen/service/v1/messages_pb.js';
import { MfaService } from '../gen/service/v1/mfa_pb.js';
import { PhoneAuthService } from '../gen/service/v1/phone_pb.js';
import { PollsService } from '../gen/service/v1/polls_pb.js';
import { ProfileService } from '../gen/service/v1/profile_pb.js';
import { PushService } from '../gen/service/v1/push_pb.js';
import { RecoveryService } from '../gen/service/v1/recovery_pb.js';
import { RelayService } from '../gen/service/v1/relay_pb.js';
import { SessionService } from '../gen/service/v1/session_pb.js';
import { StickersService } from '../gen/service/v1/stickers_pb.js';
import { StoriesService } from '../gen/service/v1/stories_pb.js';
import { SystemService } from '../gen/service/v1/system_pb.js';
import { createIdentityArea } from '../identity/identity-area.js';
import type { WsTickets } from '../identity/sessions/ws-tickets.js';
import type { TokenVerification } from '../identity/tokens/token-verification.js';
import type { KeyRecordVerifier } from '../keys/directory/key-record-rules.js';
import { createKeysArea } from '../keys/keys-area.js';
import { createMediaArea, createMediaLibrary } from '../media/media-area.js';
import type { MediaMetrics } from '../media/media-metrics.js';
import type { KeysMetrics } from '../keys/keys-metrics.js';
import { createLocationArea } from '../location/location-area.js';
import type { LocationMetrics } from '../location/location-metrics.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import { Conversations } from '../messaging/conversations/conversations.js';
import { createMessagingArea } from '../messaging/messaging-area.js';
import type { AccountDataOwner } from '../platform/account-data/account-data-owner.js';
import type { Config } from '../platform/config/settings.js';
import type { RecordDirectory } from '../platform/dht/record-directory.js';
import type { Logger } from '../platform/logging/logger.js';
import type { OutageLog } from '../platform/logging/outage-log.js';
import type { PartialServiceImpl, RpcMiddleware } from '../platform/rpc/rpc-pipeline.js';
import type { MirrorSource } from '../platform/shared-state/mirror-keeper.js';
import type { SharedState } from '../platform/shared-state/shared-state.js';
import type { DocumentStore } from '../platform/store/document-store.js';
import { createPollsArea } from '../polls/polls-area.js';
import { createPresenceArea } from '../presence/presence-area.js';
import { createProfileArea } from '../profile/profile-area.js';
import type { PushQueue } from '../push/delivery/push-queue.js';
import type { WakeUps } from '../push/delivery/wake-ups.js';
import { createPushArea } from '../push/push-area.js';
import type { PushMetrics } from '../push/push-metrics.js';
import type { ChannelFollows } from '../events/channel-follows.js';
import type { ChannelPostStream } from '../events/channel-post-stream.js';
import type { MessagingEvents } from '../events/messaging-events.js';
import type { SessionConnections } from '../events/session-connections.js';
import type { UserConnections } from '../events/user-connections.js';
import type { UserEventStream } from '../events/user-event-stream.js';
import { createRecoveryArea } from '../recovery/recovery-area.js';
import { createRelayArea } from '../relay/relay-area.js';
import { createStickersArea } from '../stickers/stickers-area.js';
import { createStoriesArea } from '../stories/stories-area.js';
import { createAreaEvents } from '../events/area-events.js';
import type { FrontendErrorCounter } from '../system/frontend-errors.js';
import { createSystemService } from '../system/system-service.js';

/** What every role builds once (start-app.ts) and the API's areas share. */
export interface ApiAreaPorts {
  readonly config: Config;
  readonly store: DocumentStore;
  readonly sharedState: SharedState;
  readonly logger: Logger;
  readonly verification: TokenVerification;
  readonly wsTickets: WsTickets;
  readonly blockMirror: BlockMirror;
  readonly events: MessagingEvents;
  /** The users' event streams and connection announcements, for the relay's deliveries. */
  readonly userEvents: UserEventStream;
  readonly userConnections: UserConnections;
  /** Channel posts on their way to the ws pods, and who follows which channel. */
  readonly channelPosts: ChannelPostStream;
  readonly channelFollows: ChannelFollows;
  /** Which sessions have a live /ws connection (push skips their devices). */
  readonly sessionConnections: SessionConnections;
  /**
   * The push queue and what fills it: `wakeUps.wake(addresses, { kind, conversationId?, seq? })`
   * is how an area wakes a user's offline devices (kinds in src/push/delivery/wake-kinds.ts).
   */
  readonly pushQueue: PushQueue;
  readonly wakeUps: WakeUps;
  readonly pushMetrics: PushMetrics;
  readonly frontendErrors: FrontendErrorCounter;
  readonly smsNumberLimiter: RateLimiter | undefined;
  /** The key directory (a DHT node, or local records), opened with the keys area's record rules. */
  readonly keyDirectory: RecordDirectory;
  /** The verifier whose rules the key directory applies. */
  readonly keyRecords: KeyRecordVerifier;
  readonly keysMetrics: KeysMetrics;
  readonly locationMetrics: LocationMetrics;
  readonly accountWalkMetrics: AccountWalkMetrics;
  readonly mediaMetrics: MediaMetrics;
  /** Where background work reports dependency outages (once per interval). */
  readonly outages: OutageLog;
}

/**
 * Work an area does on its own, started before the process serves (a start that returns a
 * promise is awaited) and stopped before storage closes.
 */
export interface BackgroundTask {
  start(): void | Promise<void>;
  stop(): Promise<void>;
}

export interface ApiAreas {
  readonly implementations: ReadonlyMap<string, PartialServiceImpl>;
  /** Identity's authentication middleware, for the RPC pipeline. */
  readonly authentication: RpcMiddleware;
  /** The areas' shared-state mirrors of the store (ended sessions, blocks), for the mirror keeper. */
  readonly mirrors: readonly MirrorSource[];
  /**
   * Messaging's sweeper of messages left unannounced, the keys area's re-publisher of key
   * records, the relay's drains on connection announcements, the location area's sweeper of
   * expired sessions, the resumer of account walks, the push dispatcher and the media sweeper.
   */
  readonly backgroundTasks: readonly BackgroundTask[];
  /**
   * Every area's records keyed by a wallet address, in the order recovery moves them and
   * deletion removes them (identity last: the account record is what marks the walk done).
   */
  readonly accountData: readonly AccountDataOwner[];
}

export async function buildApiAreas(ports: ApiAreaPorts): Promise<ApiAreas> {
  const { config, store, sharedState, logger, events } = ports;
  const areaEvents = createAreaEvents();
  const identity = await createIdentityArea({
    settings: { service: config.service, signIn: config.signIn, sessions: config.sessions, registration: config.registration, mfa: config.mfa, phone: config.phone, sms: config.sms },
    dataDir: config.store.dataDir,
    lockoutsEnabled: config.limits.enabled,
    store,
    sharedState,
    logger,
    verification: ports.verification,
    wsTickets: ports.wsTickets,
    smsNumberLimiter: ports.smsNumberLimiter,
    sessionEnds: { sessionEnded: (sessionId) => areaEvents.sessionEnded.announce(sessionId) },
  });
  const { accounts } = identity;
  const contacts = await createContactsArea({
    store,
    blockMirror: ports.blockMirror,
    blockListener: { blocked: (blocker, blocked) => areaEvents.blockMade.announce({ blocker, blocked }) },
    accounts,
    phoneAccounts: identity.phoneAccounts,
    sharedState,
    settings: config.discovery,
  });
  // The conversation model is shared: messaging writes it, presence reads who chats with whom
  // (and the groups area, and the coming channels area, write their members' records).
  const conversations = new Conversations(store, accounts);
  const presence = createPresenceArea({ store, conversations, blocks: contacts.blocks, events });
  const mediaLibrary = await createMediaLibrary({
    settings: config.media,
    store,
    blobStorage: { mongodbUrl: config.store.mongodbUrl, dataDir: config.store.dataDir },
    metrics: ports.mediaMetrics,
    logger,
  });
  const profile = createProfileArea({
    store,
    accounts,
    usernames: identity.usernames,
    blocks: contacts.blocks,
    statuses: presence.presence,
    audience: presence.audience,
    events,
    avatars: mediaLibrary.avatars,
  });
  // Channels before messaging, which carries them in its routes (send, history, chats).
  const channels = await createChannelsArea({
    settings: config.channels,
    store,
    accounts,
    media: mediaLibrary.held,
    posts: ports.channelPosts,
    follows: ports.channelFollows,
    logger,
  });
  const messaging = await createMessagingArea({
    store,
    conversations,
    channels: channels.conversations,
    media: mediaLibrary.attachments,
    viewedMediaGraceMs: config.media.viewedGraceMs,
    accounts,
    blocks: contacts.blocks,
    verifications: contacts.verifications,
    profiles: profile.publicProfiles,
    events,
    wakeUps: ports.wakeUps,
    logger,
  });
  const location = await createLocationArea({
    settings: config.location,
    store,
    conversations,
    blocks: contacts.blocks,
    blockMade: areaEvents.blockMade,
    events,
    metrics: ports.locationMetrics,
    logger,
    outages: ports.outages,
  });
  const groups = await createGroupsArea({
    settings: config.groups,
    store,
    conversations,
    sender: messaging.sender,
    avatars: mediaLibrary.held,
    messageMedia: mediaLibrary.attachments,
    blocks: contacts.blocks,
    logger,
    outages: ports.outages,
  });
  const keys = await createKeysArea({
    serviceName: config.service.name,
    verifier: ports.keyRecords,
    store,
    sharedState,
    directory: ports.keyDirectory,
    registrations: identity.phoneAccounts,
    isRetired: (address) => identity.retiredWallets.isRetired(address),
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
    accounts,
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
    activeSessionsOf: async (address) => (await identity.sessions.listActive(address)).map((session) => session._id),
    sessionEnded: areaEvents.sessionEnded,
    metrics: ports.pushMetrics,
    logger,
    outages: ports.outages,
  });
  const polls = await createPollsArea({ store, accounts, channels: channels.access, channelPosts: channels.pollPosts,
    messages: messaging.sender,
    events,
    channelEvents: ports.channelPosts,
    logger,
  });
  const stickers = await createStickersArea({ settings: config.stickers, sender: messaging.sender });
  const stories = await createStoriesArea({
    settings: config.stories,
    store,
    conversations,
    blocks: contacts.blocks,
    events,
    media: mediaLibrary.held,
  });
  // Channels and stories hold media and answer who may read it: the media service comes after them.
  const media = createMediaArea({
    settings: config.media,
    library: mediaLibrary,
    conversations,
    channelReaders: channels.access,
    storyAudience: stories.stories,
    metrics: ports.mediaMetrics,
  });
  const recovery = await createRecoveryArea({
    settings: config.accounts,
    serviceName: config.service.name,
    store,
    accounts,
    wallets: {
      hasAccount: async (address) => (await accounts.find(address)) !== null,
      isTaken: async (address) => (await accounts.findRecord(address)) !== null || (await identity.retiredWallets.isRetired(address)),
    },
    spentSignatures: identity.spentSignatures,
    signers: identity.signers,
    mac: identity.secretMac,
    // The account walk is built below, over every owner (recovery's too); a move runs only once serving.
    moves: {
      move: async (from, to) => void (await accountLife.walker.walk('move', from, to)),
      isMoving: async (from, to) => {
        const walk = await accountLife.walks.find(from);
        return walk?.kind === 'move' && walk.to === to;
      },
    },
    events,
    wakeUps: ports.wakeUps,
  });
  // Identity last: its account record is what a finished move or deletion leaves behind.
  // Groups before messaging: leaving a group (ownership passed) needs the member records that
  // messaging's deletion removes.
  const accountData: AccountDataOwner[] = [
    location.accountData,
    profile.accountData,
    groups.accountData,
    channels.accountData,
    push.accountData,
    mediaLibrary.accountData,
    stories.accountData,
    contacts.accountData,
    polls.accountData,
    messaging.accountData,
    presence.accountData,
    keys.accountData,
    relay.accountData,
    recovery.accountData,
    identity.accountData,
  ];
  const accountLife = await createAccountLifecycleArea({
    settings: config.accounts,
    store,
    owners: accountData,
    closer: identity.accountData,
    confirmSecondFactor: (address, code) => identity.mfa.confirm(address, code),
    metrics: ports.accountWalkMetrics,
    logger,
    outages: ports.outages,
  });
  return {
    authentication: identity.authentication,
    mirrors: [identity.mirror, contacts.mirror, channels.mirror],
    backgroundTasks: [identity.signers, messaging.announcementSweeper, keys.republisher, relay.drains, location.expirySweeper, accountLife.resumer, push.dispatcher, mediaLibrary.background, groups.creationResumer],
    accountData,
    implementations: new Map<string, PartialServiceImpl>([
      [SystemService.typeName, createSystemService(ports.frontendErrors)],
      [AuthService.typeName, identity.services.auth],
      [SessionService.typeName, identity.services.session],
      [DeviceService.typeName, identity.services.device],
      [AdminService.typeName, createAdminService({ lockouts: identity.lockouts, audit: identity.audit })],
      [MfaService.typeName, identity.services.mfa],
      [PhoneAuthService.typeName, identity.services.phoneAuth],
      [MessagesService.typeName, messaging.service],
      [GroupsService.typeName, groups.service],
      [ContactsService.typeName, contacts.service],
      // One service, three parts: presence answers UpdateStatus, account life DeleteAccount,
      // the profile area the rest.
      [ProfileService.typeName, { ...presence.service, ...profile.service, ...accountLife.service }],
      [KeysService.typeName, keys.service],
      [RelayService.typeName, relay.service],
      [LocationService.typeName, location.service],
      [RecoveryService.typeName, recovery.service],
      [ChannelsService.typeName, channels.service],
      [PushService.typeName, push.service],
      [MediaService.typeName, media.service],
      [PollsService.typeName, polls.service],
      [StickersService.typeName, stickers.service],
      [StoriesService.typeName, stories.service],
    ]),
  };
}
