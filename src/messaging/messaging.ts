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
import type { Collection, DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import { Presence } from '../presence/presence.js';
import type { UserEventStream } from '../realtime/events/user-event-stream.js';
import { conversationIndexes } from './conversations/conversation.js';
import { Conversations } from './conversations/conversations.js';
import { MessageNumbering } from './conversations/message-numbering.js';
import { MediaCatalog } from './messages/media-catalog.js';
import { MessageSender } from './messages/message-sender.js';
import { Stars, starIndexes } from './messages/stars.js';
import { MESSAGES, messageIndexes } from './messages/stored-message.js';
import type { StoredMessage } from './messages/stored-message.js';
import { MessagingEvents } from './messaging-events.js';

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

/** Every index of the messaging area (created at start, and by the ensure-indexes command before a rollout). */
export const messagingIndexes: IndexSpec[] = [...conversationIndexes, ...messageIndexes, ...starIndexes, ...blockIndexes];

export async function createMessaging(store: DocumentStore, sharedState: SharedState, stream: UserEventStream, logger: Logger): Promise<Messaging> {
  await store.ensureIndexes(messagingIndexes);
  const events = new MessagingEvents(stream, logger);
  const conversations = new Conversations(store);
  const messages = store.collection<StoredMessage>(MESSAGES);
  // The mirror is rebuilt from the store by the mirror keeper (src/app/start-app.ts).
  const blocks = new BlockList(store, new BlockMirror(sharedState));
  return {
    accounts: new AccountRepository(store),
    conversations,
    messages,
    sender: new MessageSender(conversations, messages, blocks, new MediaCatalog(store), events, new MessageNumbering(conversations, messages)),
    stars: new Stars(store),
    blocks,
    verifications: new ContactVerifications(store),
    presence: new Presence(store, conversations, blocks, events),
    events,
  };
}
