/**
 * The messaging core's parts, built once per api process over the store and the users' event
 * streams: conversations, messages, stars, blocks, verifications and presence.
 */
import { BlockList, blockIndexes } from '../contacts/block-list.js';
import { BlockMirror } from '../contacts/block-mirror.js';
import { ContactVerifications } from '../contacts/contact-verifications.js';
import { AccountRepository } from '../identity/accounts/account-repository.js';
import type { Logger } from '../platform/logging/logger.js';
import type { SharedState } from '../platform/shared-state/shared-state.js';
import type { Collection, DocumentStore } from '../platform/store/document-store.js';
import { Presence } from '../presence/presence.js';
import type { UserEventStream } from '../realtime/events/user-event-stream.js';
import { conversationIndexes } from './conversations/conversation.js';
import { Conversations } from './conversations/conversations.js';
import { MediaCatalog } from './messages/media-catalog.js';
import { MessageSender } from './messages/message-sender.js';
import { Stars, starIndexes } from './messages/stars.js';
import { MESSAGES, messageIndexes } from './messages/stored-message.js';
import type { StoredMessage } from './messages/stored-message.js';
import { MessagingEvents } from '../realtime/events/messaging-events.js';

export interface Messaging {
  readonly accounts: AccountRepository;
  readonly conversations: Conversations;
  readonly messages: Collection<StoredMessage>;
  readonly sender: MessageSender;
  readonly stars: Stars;
  readonly blocks: BlockList;
  readonly verifications: ContactVerifications;
  readonly presence: Presence;
  readonly events: MessagingEvents;
}

export async function createMessaging(store: DocumentStore, sharedState: SharedState, stream: UserEventStream, logger: Logger): Promise<Messaging> {
  await store.ensureIndexes([...conversationIndexes, ...messageIndexes, ...starIndexes, ...blockIndexes]);
  const events = new MessagingEvents(stream, logger);
  const conversations = new Conversations(store);
  const messages = store.collection<StoredMessage>(MESSAGES);
  const blocks = new BlockList(store, new BlockMirror(sharedState));
  // In the background: a Redis that lost its data gets the blocks back; until then the store
  // (which every send and typing check reads) is right, only call refusals could miss a block.
  blocks.restoreMirror().then(
    (copied) => logger.info({ copied }, 'block mirror restored'),
    (error: unknown) => logger.warn({ err: error }, 'block mirror not restored; it is rebuilt at the next start'),
  );
  return {
    accounts: new AccountRepository(store),
    conversations,
    messages,
    sender: new MessageSender(conversations, messages, blocks, new MediaCatalog(store), events),
    stars: new Stars(store),
    blocks,
    verifications: new ContactVerifications(store),
    presence: new Presence(store, conversations, blocks, events),
    events,
  };
}
