/**
 * What the API's areas are built from (start-app.ts builds it once per process; api-areas.ts
 * hands each area the parts it names).
 */
import type { AccountWalkMetrics } from '../account-lifecycle/account-walk-metrics.js';
import type { BlockMirror } from '../contacts/block-mirror.js';
import type { ChannelFollows } from '../events/channel-follows.js';
import type { ChannelPostStream } from '../events/channel-post-stream.js';
import type { MessagingEvents } from '../events/messaging-events.js';
import type { SessionConnections } from '../events/session-connections.js';
import type { UserConnections } from '../events/user-connections.js';
import type { UserEventStream } from '../events/user-event-stream.js';
import type { WsTickets } from '../identity/sessions/ws-tickets.js';
import type { TokenVerification } from '../identity/tokens/token-verification.js';
import type { ContractSignatureVerifier } from '../identity/wallet/contract-signature-verifier.js';
import type { WalletSignatures } from '../identity/wallet/wallet-signatures.js';
import type { KeyRecordVerifier } from '../keys/directory/key-record-rules.js';
import type { KeysMetrics } from '../keys/keys-metrics.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import type { LocationMetrics } from '../location/location-metrics.js';
import type { MediaMetrics } from '../media/media-metrics.js';
import type { Config } from '../platform/config/settings.js';
import type { RecordDirectory } from '../platform/dht/record-directory.js';
import type { Logger } from '../platform/logging/logger.js';
import type { OutageLog } from '../platform/logging/outage-log.js';
import type { SharedState } from '../platform/shared-state/shared-state.js';
import type { DocumentStore } from '../platform/store/document-store.js';
import type { PushQueue } from '../push/delivery/push-queue.js';
import type { WakeUps } from '../push/delivery/wake-ups.js';
import type { PushMetrics } from '../push/push-metrics.js';
import type { FrontendErrorCounter } from '../system/frontend-errors.js';

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
  /**
   * Contract wallets (issue #28): the chains' verifier (undefined without ETH_RPC_URLS), given
   * to identity, and the wallet check of key bindings the key directory's rules use too.
   */
  readonly wallets: {
    readonly contracts: ContractSignatureVerifier | undefined;
    readonly keySignatures: WalletSignatures;
  };
  readonly keysMetrics: KeysMetrics;
  readonly locationMetrics: LocationMetrics;
  readonly accountWalkMetrics: AccountWalkMetrics;
  readonly mediaMetrics: MediaMetrics;
  /** Where background work reports dependency outages (once per interval). */
  readonly outages: OutageLog;
}
