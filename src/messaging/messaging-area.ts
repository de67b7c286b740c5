/**
 * The messaging area of an api process: sending, history, receipts, stars, view-once, typing,
 * timers, the chat list and peer info, all over one conversation model. What it shares with
 * other areas comes in: the conversations (presence and the groups area use them too), the
 * channels area's side of channels (`ChannelConversations`: channels keep their own posts and
 * read markers), identity's accounts, contacts' blocks and verifications, the public profiles
 * and the event publisher. It returns, besides its service, the sweeper of messages left
 * unannounced, for the app to start and stop, and the sender that the groups area writes its
 * system messages with.
 */
import type { BlockList } from '../contacts/block-list.js';
import type { ContactVerifications } from '../contacts/contact-verifications.js';
import type { AccountRepository } from '../accounts/account-repository.js';
import type { Logger } from '../platform/logging/logger.js';
import type { WakeUps } from '../push/delivery/wake-ups.js';
import type { Collection, DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import type { MessagingEvents } from '../events/messaging-events.js';
import { ChatList } from './chats/chat-list.js';
import { DisappearingTimer } from './chats/disappearing-timer.js';
import { PeerInfo } from './chats/peer-info.js';
import type { ProfileView } from './chats/peer-info.js';
import { Typing } from './chats/typing.js';
import type { ChannelConversations } from './conversations/channel-conversations-port.js';
import { conversationIndexes } from './conversations/conversation.js';
import type { Conversations } from './conversations/conversations.js';
import { AnnouncementSweeper } from './messages/announcement-sweeper.js';
import { History } from './messages/history.js';
import type { MediaAttachments } from './messages/media-attachments.js';
import { MessageAnnouncer } from './messages/message-announcer.js';
import { MessageNumbering } from './messages/message-numbering.js';
import { MessageSender } from './messages/message-sender.js';
import { Receipts } from './messages/receipts.js';
import { Stars, starIndexes } from './messages/stars.js';
import { MESSAGES, messageIndexes } from './messages/stored-message.js';
import type { StoredMessage } from './messages/stored-message.js';
import { ViewOnce } from './messages/view-once.js';
import { MessagingAccountData } from './messaging-account-data.js';
import { EncryptedReactions, reactionIndexes } from './messages/encrypted-reactions.js';
import { MessageDeletions } from './relations/message-deletions.js';
import { MessageEdits } from './relations/message-edits.js';
import { MessagePins } from './relations/message-pins.js';
import { MessageReactions } from './relations/message-reactions.js';
import { Pins, pinIndexes } from './relations/pins.js';
import { RelationEvents } from './relations/relation-events.js';
import { RelationTargets } from './relations/relation-targets.js';
import { RelationViews } from './relations/relation-views.js';
import { SendRelations } from './relations/send-relations.js';
import type { SendAdmission } from './messages/send-admission.js';
import type { MessagingSettings } from '../platform/config/settings.js';
import type { PollSends } from './messages/poll-sends-port.js';
import { createMessagesService } from './messages-service.js';

export interface MessagingDependencies {
  /** MESSAGE_EDIT_WINDOW and MESSAGE_DELETE_WINDOW. */
  readonly settings: MessagingSettings;
  readonly store: DocumentStore;
  readonly conversations: Conversations;
  /** The channels area's side of channels in the messaging routes (send, history, read markers, chats). */
  readonly channels: ChannelConversations;
  /** Builds the polls area's side of a send with `poll_id`, which sends through this sender. */
  readonly pollSends: (sender: MessageSender) => PollSends;
  readonly accounts: AccountRepository;
  readonly blocks: BlockList;
  /** The media area's record of which message uses which upload. */
  readonly media: MediaAttachments;
  /** How long a viewed view-once message's media stays downloadable (MEDIA_VIEWED_GRACE). */
  readonly viewedMediaGraceMs: number;
  readonly verifications: ContactVerifications;
  readonly profiles: ProfileView;
  readonly events: MessagingEvents;
  /** Push wake-ups of recipients' offline devices. */
  readonly wakeUps: WakeUps;
  /** The moderation area's admission of sends (suspensions, the spam limit) and franking tags. */
  readonly admission: SendAdmission;
  readonly logger: Logger;
}

/** Every index of the messaging area (created at start, and by the ensure-indexes command before a rollout). */
export const messagingIndexes: IndexSpec[] = [
  ...conversationIndexes,
  ...messageIndexes,
  ...starIndexes,
  ...reactionIndexes,
  ...pinIndexes,
];

export async function createMessagingArea(deps: MessagingDependencies) {
  const { store, conversations, accounts, blocks, events, logger } = deps;
  await store.ensureIndexes(messagingIndexes);
  const messages = store.collection<StoredMessage>(MESSAGES);
  const announcer = new MessageAnnouncer(messages, conversations, events, logger);
  const targets = new RelationTargets(conversations, messages, deps.channels);
  const sender = new MessageSender(
    conversations,
    messages,
    blocks,
    deps.media,
    announcer,
    new MessageNumbering(conversations, messages),
    deps.wakeUps,
    new SendRelations(targets, conversations),
    deps.admission,
  );
  const pollSends = deps.pollSends(sender);
  const stars = new Stars(store, messages, conversations);
  const relations = relationParts(deps, { targets, messages, stars });
  const service = createMessagesService({
    conversations,
    channels: deps.channels,
    polls: pollSends,
    sender,
    history: new History(messages),
    receipts: new Receipts(messages, conversations, blocks, events),
    stars,
    viewOnce: new ViewOnce(messages, events, deps.media, deps.viewedMediaGraceMs),
    chatList: new ChatList(conversations, messages, accounts, deps.channels),
    peerInfo: new PeerInfo({
      conversations,
      blocks,
      verifications: deps.verifications,
      profiles: deps.profiles,
    }),
    typing: new Typing(conversations, blocks, events),
    disappearingTimer: new DisappearingTimer(conversations, sender),
    ...relations,
  });
  // The sender goes to the areas whose conversations messaging carries (groups), the poll
  // sends to the polls area (a poll created with its conversation), the relation targets to the
  // moderation area (which finds a reported message as a relation finds its target).
  return {
    service,
    sender,
    pollSends,
    targets,
    announcementSweeper: new AnnouncementSweeper(messages, announcer, logger),
    accountData: new MessagingAccountData(store, conversations, messages),
  };
}

/** The relation objects (edits, deletions, reactions, pins) over one target check and one event path. */
function relationParts(
  deps: MessagingDependencies,
  parts: { targets: RelationTargets; messages: Collection<StoredMessage>; stars: Stars },
) {
  const { store, conversations, channels } = deps;
  const { targets, messages, stars } = parts;
  const reactionRecords = new EncryptedReactions(store);
  const pins = new Pins(store);
  const events = new RelationEvents(conversations, deps.events);
  const views = new RelationViews(reactionRecords, pins, stars);
  return {
    views,
    edits: new MessageEdits(targets, messages, channels, events, views, deps.settings.editWindowMs),
    deletions: new MessageDeletions({
      targets,
      messages,
      conversations,
      channels,
      media: deps.media,
      reactions: reactionRecords,
      pins,
      stars,
      events,
      views,
      windowMs: deps.settings.deleteWindowMs,
    }),
    reactions: new MessageReactions(targets, reactionRecords, channels, events, views),
    pins: new MessagePins({ targets, pins, messages, conversations, channels, events, views }),
  };
}
