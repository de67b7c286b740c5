/**
 * The message-sending parts of one api process, built as messaging-area.ts builds them, for
 * tests that drive the domain objects directly (several "processes" over one store, or a
 * recording store).
 */
import { BlockList } from '../../src/contacts/block-list.js';
import { BlockMirror } from '../../src/contacts/block-mirror.js';
import { contactsIndexes } from '../../src/contacts/contacts-area.js';
import { AccountRepository } from '../../src/accounts/account-repository.js';
import { Conversations } from '../../src/messaging/conversations/conversations.js';
import { AnnouncementSweeper } from '../../src/messaging/messages/announcement-sweeper.js';
import { MessageAttachments } from '../../src/media/attachments.js';
import { MediaItems } from '../../src/media/media-items.js';
import { MessageAnnouncer } from '../../src/messaging/messages/message-announcer.js';
import { MessageNumbering } from '../../src/messaging/messages/message-numbering.js';
import { MessageSender } from '../../src/messaging/messages/message-sender.js';
import { ADMIT_ALL } from './admit-all.js';
import { MESSAGES } from '../../src/messaging/messages/stored-message.js';
import type { StoredMessage } from '../../src/messaging/messages/stored-message.js';
import { messagingIndexes } from '../../src/messaging/messaging-area.js';
import { createLogger } from '../../src/platform/logging/logger.js';
import { OutageLog } from '../../src/platform/logging/outage-log.js';
import type { SharedState } from '../../src/platform/shared-state/shared-state.js';
import type { Collection, DocumentStore } from '../../src/platform/store/document-store.js';
import { MessagingEvents } from '../../src/events/messaging-events.js';
import { UserEventStream } from '../../src/events/user-event-stream.js';
import { PushQueue } from '../../src/push/delivery/push-queue.js';
import { WakeUps } from '../../src/push/delivery/wake-ups.js';
import type { ChannelConversations } from '../../src/messaging/conversations/channel-conversations-port.js';
import { RelationTargets } from '../../src/messaging/relations/relation-targets.js';
import { SendRelations } from '../../src/messaging/relations/send-relations.js';

/** These tests send direct and group messages only: a channel request would be a test bug. */
const NO_CHANNELS = new Proxy({} as ChannelConversations, {
  get: (_, name) => () => Promise.reject(new Error(`no channels in this test (${String(name)})`)),
});

export interface MessageSending {
  readonly conversations: Conversations;
  readonly messages: Collection<StoredMessage>;
  readonly sender: MessageSender;
  readonly sweeper: AnnouncementSweeper;
}

export async function messageSending(
  store: DocumentStore,
  sharedState: SharedState,
): Promise<MessageSending> {
  await store.ensureIndexes([...contactsIndexes, ...messagingIndexes]);
  const conversations = new Conversations(store, new AccountRepository(store));
  const messages = store.collection<StoredMessage>(MESSAGES);
  const logger = createLogger('silent');
  const events = new MessagingEvents(
    new UserEventStream(sharedState, { retainCount: 100, retentionMs: 60_000 }),
    logger,
  );
  const blocks = new BlockList(store, new BlockMirror(sharedState));
  const announcer = new MessageAnnouncer(messages, conversations, events, logger);
  const sender = new MessageSender(
    conversations,
    messages,
    blocks,
    new MessageAttachments(new MediaItems(store)),
    announcer,
    new MessageNumbering(conversations, messages),
    new WakeUps(new PushQueue(sharedState), logger, new OutageLog(logger)),
    new SendRelations(new RelationTargets(conversations, messages, NO_CHANNELS), conversations),
    ADMIT_ALL,
  );
  return {
    conversations,
    messages,
    sender,
    sweeper: new AnnouncementSweeper(messages, announcer, logger),
  };
}
