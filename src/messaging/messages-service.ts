/**
 * MessagesService (messages.proto): sending, history, chat list, receipts, stars, timers,
 * view-once. Each RPC checks its request's shape and hands it to a domain object (messages/,
 * chats/, conversations/); the rules and the storage live there.
 */
import type { HandlerContext } from '@connectrpc/connect';
import type {
  GetPeerInfoRequest,
  ListChatsRequest,
  ListMessagesRequest,
  ListStarredMessagesRequest,
  MarkAsReadRequest,
  Message,
  SendFileRequest,
  SendMessageRequest,
  SendTypingRequest,
  SendVideoRequest,
  SendVoiceRequest,
  SetDisappearingTimerRequest,
  StarMessageRequest,
  UnstarMessageRequest,
  ViewOnceMessageRequest,
} from '../gen/service/v1/messages_pb.js';
import { requireCaller } from '../identity/auth/caller.js';
import { decodeCursor, pageSize } from '../platform/api/page-cursor.js';
import { invalidArgument } from '../platform/errors/api-error.js';
import type { ChatList } from './chats/chat-list.js';
import type { DisappearingTimer } from './chats/disappearing-timer.js';
import type { PeerInfo } from './chats/peer-info.js';
import type { Typing } from './chats/typing.js';
import type { ChannelConversations } from './conversations/channel-conversations-port.js';
import type { Conversations } from './conversations/conversations.js';
import type { History } from './messages/history.js';
import type { MessageSender, SendRequest, SendResult } from './messages/message-sender.js';
import { messageView } from './messages/message-view.js';
import type { Receipts } from './messages/receipts.js';
import type { Stars } from './messages/stars.js';
import type { ViewOnce } from './messages/view-once.js';

const MAX_DURATION_MS = 3_600_000;

type MediaSendRequest = SendVoiceRequest | SendVideoRequest | SendFileRequest;

export interface MessagesServiceDependencies {
  readonly conversations: Conversations;
  /** Channels, which the channels area keeps: messaging routes `channel_id` requests there. */
  readonly channels: ChannelConversations;
  readonly sender: MessageSender;
  readonly history: History;
  readonly receipts: Receipts;
  readonly stars: Stars;
  readonly viewOnce: ViewOnce;
  readonly chatList: ChatList;
  readonly peerInfo: PeerInfo;
  readonly typing: Typing;
  readonly disappearingTimer: DisappearingTimer;
}

export function createMessagesService(deps: MessagesServiceDependencies) {
  const { conversations, sender, stars, channels } = deps;

  const sent = (result: SendResult) => accepted(messageView(result.message), result.duplicate);

  /**
   * A send to a user or a group goes to the sender; one to a channel (only `channel_id` set) is
   * published by the channels area, which checks the kind, body and media as PublishChannelPost.
   */
  const send = async (caller: string, request: SendRequest) => {
    if (!onlyChannel({ ...request, peerAddress: request.recipientAddress })) return sent(await sender.send(caller, request));
    if (request.viewOnce) throw invalidArgument('view_once is only for direct chats');
    const { message, duplicate } = await channels.publish(caller, request.channelId, request);
    return accepted(message, duplicate);
  };

  /** Voice, video and file: an upload of that kind is required; voice and video have a duration. */
  const sendMedia = (kind: 'voice' | 'video' | 'file') => async (request: MediaSendRequest, context: HandlerContext) => {
    const caller = requireCaller(context).address;
    if (request.mediaId === '') throw invalidArgument('media_id is required');
    const durationMs = 'durationMs' in request ? request.durationMs : 0;
    if (kind !== 'file' && (durationMs < 1 || durationMs > MAX_DURATION_MS)) throw invalidArgument(`duration_ms must be between 1 and ${MAX_DURATION_MS}`);
    const viewOnce = 'viewOnce' in request ? request.viewOnce : false;
    return send(caller, { ...common(request), kind, mediaId: request.mediaId, durationMs, viewOnce });
  };

  /** A direct chat's or group's read marker, with the receipts it sends. */
  const markRead = async (caller: string, request: MarkAsReadRequest) => {
    const target = await conversations.resolve(caller, request);
    return { conversationId: target.conversationId, ...(await deps.receipts.markRead(caller, target, request.upToMessageId)) };
  };

  return {
    async sendMessage(request: SendMessageRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const kind = request.kind === '' ? 'text' : request.kind;
      if (kind !== 'text' && kind !== 'image') throw invalidArgument('kind must be text or image (other kinds have their own endpoints)');
      if (kind === 'text' && request.mediaId !== '') throw invalidArgument('media_id must be empty for text');
      if (kind === 'image' && request.mediaId === '') throw invalidArgument('media_id is required for image');
      return send(caller, { ...common(request), kind, mediaId: request.mediaId, durationMs: 0, viewOnce: request.viewOnce });
    },

    sendVoice: sendMedia('voice'),
    sendVideo: sendMedia('video'),
    sendFile: sendMedia('file'),

    async listChats(request: ListChatsRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const page = await deps.chatList.page(caller, pageSize(request.pageSize), decodeCursor(request.cursor));
      return { success: true, message: `${page.chats.length} chats`, ...page };
    },

    async listMessages(request: ListMessagesRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      if (onlyChannel(request)) {
        const page = await channels.history(caller, request.channelId, request);
        return { success: true, message: `${page.messages.length} messages`, ...page };
      }
      const target = await conversations.resolve(caller, request);
      const page = await deps.history.read(target.conversationId, caller, request, target.historyFrom);
      await deps.receipts.markDelivered(caller, target, page.messages);
      const starred = await stars.starredAmong(caller, page.messages.map((message) => message._id));
      const exists = page.messages.length > 0 || (await conversations.find(target.conversationId)) !== null;
      return {
        success: true,
        message: `${page.messages.length} messages`,
        conversationId: exists ? target.conversationId : '',
        messages: page.messages.map((message) => messageView(message, { starred: starred.has(message._id) })),
        beforeCursor: page.beforeCursor,
        afterCursor: page.afterCursor,
        hasMoreAfter: page.hasMoreAfter,
      };
    },

    async getPeerInfo(request: GetPeerInfoRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const peer = await conversations.existingUser(request.address, 'address');
      return { success: true, message: 'Peer found', peer: await deps.peerInfo.of(caller, peer) };
    },

    async sendTyping(request: SendTypingRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const state = request.state === '' ? 'typing' : request.state;
      if (state !== 'typing' && state !== 'paused') throw invalidArgument('state must be typing or paused');
      const target = await conversations.resolve(caller, { peerAddress: request.peerAddress, groupId: request.groupId });
      const told = await deps.typing.tell(caller, target, state);
      return { success: true, message: told > 0 ? 'Typing indicator sent' : 'Nobody to tell' };
    },

    async markAsRead(request: MarkAsReadRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const marker = onlyChannel(request) ? await channels.markRead(caller, request.channelId, request.upToMessageId) : await markRead(caller, request);
      return {
        success: true,
        message: marker.moved ? 'Read marker moved' : 'Read marker unchanged',
        conversationId: marker.conversationId,
        lastReadMessageId: marker.lastReadMessageId,
        unreadCount: marker.unreadCount,
      };
    },

    async starMessage(request: StarMessageRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      await stars.star(caller, request.messageId);
      return { success: true, message: 'Message starred', messageId: request.messageId, starred: true };
    },

    async unstarMessage(request: UnstarMessageRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      await stars.unstar(caller, request.messageId);
      return { success: true, message: 'Message unstarred', messageId: request.messageId, starred: false };
    },

    async listStarredMessages(request: ListStarredMessagesRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const filters = [request.peerAddress, request.groupId, request.channelId].filter((value) => value !== '');
      if (filters.length > 1) throw invalidArgument('Give at most one of peer_address, group_id and channel_id');
      const limit = pageSize(request.pageSize);
      const after = decodeCursor(request.cursor);
      const conversationId = filters.length === 1 ? (await conversations.resolve(caller, request)).conversationId : undefined;
      const page = await stars.listStarred(caller, conversationId, limit, after);
      return {
        success: true,
        message: `${page.messages.length} starred messages`,
        messages: page.messages.map((message) => messageView(message, { starred: true })),
        nextCursor: page.nextCursor,
      };
    },

    async setDisappearingTimer(request: SetDisappearingTimerRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const seconds = request.disappearingTimerSeconds;
      const changed = await deps.disappearingTimer.set(caller, { peerAddress: request.peerAddress, groupId: request.groupId }, seconds);
      return {
        success: true,
        message: seconds === 0 ? 'Disappearing messages off' : 'Disappearing timer set',
        conversationId: changed.conversationId,
        disappearingTimerSeconds: seconds,
        updatedAt: changed.updatedAt.toISOString(),
      };
    },

    async viewOnceMessage(request: ViewOnceMessageRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const { message, viewedAt, mediaAvailableUntil } = await deps.viewOnce.open(caller, request.peer, request.id);
      return {
        success: true,
        message: 'View-once message opened; it cannot be opened again',
        chatMessage: messageView({ ...message, viewedAt }, { openViewOnce: true }),
        mediaAvailableUntil: mediaAvailableUntil?.toISOString() ?? '',
      };
    },
  };
}

const accepted = (chatMessage: Message, duplicate: boolean) => ({
  success: true,
  message: duplicate ? 'Message already accepted' : 'Message sent',
  chatMessage,
  duplicate,
});

/** The request names a channel and nothing else (otherwise resolving it refuses the mix with 400). */
const onlyChannel = (request: { peerAddress: string; groupId: string; channelId: string }) => request.channelId !== '' && request.peerAddress === '' && request.groupId === '';

/** The target and ciphertext fields every send request shares. */
function common(request: SendMessageRequest | MediaSendRequest): Pick<SendRequest, 'clientMessageId' | 'recipientAddress' | 'groupId' | 'channelId' | 'ciphertext'> {
  return {
    clientMessageId: request.clientMessageId,
    recipientAddress: request.recipientAddress,
    groupId: request.groupId,
    channelId: request.channelId,
    ciphertext: request.ciphertext,
  };
}
