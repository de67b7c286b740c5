/** MessagesService (messages.proto): sending, history, chat list, receipts, stars, timers, view-once. */
import type { HandlerContext } from '@connectrpc/connect';
import type {
  GetPeerInfoRequest,
  ListChatsRequest,
  ListMessagesRequest,
  ListStarredMessagesRequest,
  MarkAsReadRequest,
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
import { isWalletAddress } from '../identity/wallet/wallet-address.js';
import { decodeCursor, encodeCursor, pageSize } from '../platform/api/page-cursor.js';
import { gone, invalidArgument, notFound, permissionDenied } from '../platform/errors/api-error.js';
import type { StoreFilter } from '../platform/store/document-store.js';
import { chatList } from './chats/chat-list.js';
import { memberId } from './conversations/conversation.js';
import { readHistory } from './messages/history.js';
import type { SendRequest, SendResult } from './messages/message-sender.js';
import { messageView } from './messages/message-view.js';
import type { MessageStar } from './messages/stars.js';
import type { StoredMessage } from './messages/stored-message.js';
import { isVisibleTo, visibleTo } from './messages/visibility.js';
import type { Messaging } from './messaging-area.js';
import { peerInfo } from './chats/peer-info.js';

const MAX_DURATION_MS = 3_600_000;
const MIN_TIMER_SECONDS = 5;
const MAX_TIMER_SECONDS = 604_800;
/** How long a viewed view-once message's media stays downloadable (messages.proto). */
const VIEWED_MEDIA_GRACE_MS = 5 * 60 * 1000;

type MediaSendRequest = SendVoiceRequest | SendVideoRequest | SendFileRequest;

export function createMessagesService(messaging: Messaging) {
  const { conversations, messages, sender, stars, blocks, events } = messaging;

  const sent = (result: SendResult) => ({
    success: true,
    message: result.duplicate ? 'Message already accepted' : 'Message sent',
    chatMessage: messageView(result.message),
    duplicate: result.duplicate,
  });

  /** Voice, video and file: an upload of that kind is required; voice and video have a duration. */
  const sendMedia = (kind: 'voice' | 'video' | 'file') => async (request: MediaSendRequest, context: HandlerContext) => {
    const caller = requireCaller(context).address;
    if (request.mediaId === '') throw invalidArgument('media_id is required');
    const durationMs = 'durationMs' in request ? request.durationMs : 0;
    if (kind !== 'file' && (durationMs < 1 || durationMs > MAX_DURATION_MS)) throw invalidArgument(`duration_ms must be between 1 and ${MAX_DURATION_MS}`);
    const viewOnce = 'viewOnce' in request ? request.viewOnce : false;
    return sent(await sender.send(caller, { ...common(request), kind, mediaId: request.mediaId, durationMs, viewOnce }));
  };

  /** A message the caller may read: in one of its conversations and visible to it. */
  const readable = async (caller: string, messageId: string): Promise<StoredMessage> => {
    if (messageId === '') throw invalidArgument('message_id is required');
    const message = messageId.length <= 64 ? await messages.findOne({ _id: messageId }) : null;
    const participates = message
      ? message.conversationId.startsWith('dm:')
        ? message.conversationId.split(':').includes(caller)
        : (await conversations.member(message.conversationId, caller)) !== null
      : false;
    if (!message || !participates || !isVisibleTo(message, caller, new Date())) throw notFound('No such message');
    return message;
  };

  return {
    async sendMessage(request: SendMessageRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const kind = request.kind === '' ? 'text' : request.kind;
      if (kind !== 'text' && kind !== 'image') throw invalidArgument('kind must be text or image (other kinds have their own endpoints)');
      if (kind === 'text' && request.mediaId !== '') throw invalidArgument('media_id must be empty for text');
      if (kind === 'image' && request.mediaId === '') throw invalidArgument('media_id is required for image');
      return sent(await sender.send(caller, { ...common(request), kind, mediaId: request.mediaId, durationMs: 0, viewOnce: request.viewOnce }));
    },

    sendVoice: sendMedia('voice'),
    sendVideo: sendMedia('video'),
    sendFile: sendMedia('file'),

    async listChats(request: ListChatsRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const page = await chatList(messaging, caller, pageSize(request.pageSize), decodeCursor(request.cursor));
      return { success: true, message: `${page.chats.length} chats`, ...page };
    },

    async listMessages(request: ListMessagesRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const target = await conversations.resolve(caller, request);
      const page = await readHistory(messages, target.conversationId, caller, request);
      const delivered = page.messages.filter((message) => message.recipientAddress === caller && message.senderAddress !== caller && message.status === 'sent');
      if (delivered.length > 0) {
        await messages.updateMany({ _id: { $in: delivered.map((message) => message._id) }, status: 'sent' }, { $set: { status: 'delivered' } });
        for (const message of delivered) message.status = 'delivered';
      }
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
      return { success: true, message: 'Peer found', peer: await peerInfo(messaging, caller, peer) };
    },

    async sendTyping(request: SendTypingRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const state = request.state === '' ? 'typing' : request.state;
      if (state !== 'typing' && state !== 'paused') throw invalidArgument('state must be typing or paused');
      const target = await conversations.resolve(caller, { peerAddress: request.peerAddress, groupId: request.groupId });
      const recipients =
        target.type === 'direct'
          ? target.peer === caller || (await blocks.isBlocked(target.peer, caller))
            ? []
            : [target.peer]
          : (await conversations.members.find({ conversationId: target.conversationId }, { projection: { address: 1 } }))
              .map((member) => member.address)
              .filter((address) => address !== caller);
      await events.ephemeral('typing', recipients, { conversation_id: target.conversationId, from_address: caller, group_id: target.groupId, state });
      return { success: true, message: recipients.length > 0 ? 'Typing indicator sent' : 'Nobody to tell' };
    },

    async markAsRead(request: MarkAsReadRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const target = await conversations.resolve(caller, request);
      if (request.upToMessageId === '') throw invalidArgument('up_to_message_id is required');
      const now = new Date();
      const upTo = request.upToMessageId.length <= 64 ? await messages.findOne({ _id: request.upToMessageId, conversationId: target.conversationId }) : null;
      if (!upTo || !isVisibleTo(upTo, caller, now)) throw notFound('No such message in this conversation');
      const moved = await conversations.members.findOneAndUpdate(
        { _id: memberId(target.conversationId, caller), lastReadSequence: { $lt: upTo.sequence } },
        { $set: { lastReadSequence: upTo.sequence, lastReadMessageId: upTo._id } },
        { returnDocument: 'after' },
      );
      const member = moved ?? (await conversations.member(target.conversationId, caller));
      if (moved && target.type !== 'channel') {
        const readFilter: StoreFilter<StoredMessage> = { conversationId: target.conversationId, sequence: { $lte: upTo.sequence }, senderAddress: { $ne: caller }, status: { $ne: 'read' }, withheld: false };
        if (target.type === 'direct') await messages.updateMany({ ...readFilter, recipientAddress: caller }, { $set: { status: 'read' } });
        const tellPeer = target.type === 'direct' && target.peer !== caller && !(await blocks.isBlocked(caller, target.peer));
        await events.durable('message.read', tellPeer ? [caller, target.peer] : [caller], {
          conversation_id: target.conversationId,
          reader_address: caller,
          up_to_message_id: upTo._id,
          up_to_sequence: upTo.sequence,
          read_at: now.toISOString(),
        });
      }
      const lastRead = member?.lastReadSequence ?? 0;
      const unreadCount = await messages.countDocuments({ conversationId: target.conversationId, sequence: { $gt: lastRead }, senderAddress: { $ne: caller }, ...visibleTo(caller, now) });
      return {
        success: true,
        message: moved ? 'Read marker moved' : 'Read marker unchanged',
        conversationId: target.conversationId,
        lastReadMessageId: member?.lastReadMessageId ?? '',
        unreadCount,
      };
    },

    async starMessage(request: StarMessageRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      await stars.star(caller, await readable(caller, request.messageId));
      return { success: true, message: 'Message starred', messageId: request.messageId, starred: true };
    },

    async unstarMessage(request: UnstarMessageRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      await readable(caller, request.messageId);
      await stars.unstar(caller, request.messageId);
      return { success: true, message: 'Message unstarred', messageId: request.messageId, starred: false };
    },

    async listStarredMessages(request: ListStarredMessagesRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const filters = [request.peerAddress, request.groupId, request.channelId].filter((value) => value !== '');
      if (filters.length > 1) throw invalidArgument('Give at most one of peer_address, group_id and channel_id');
      const limit = pageSize(request.pageSize);
      const after = decodeCursor(request.cursor);
      const scope: StoreFilter<MessageStar> = { address: caller };
      if (filters.length === 1) scope.conversationId = (await conversations.resolve(caller, request)).conversationId;
      const filter: StoreFilter<MessageStar> = after
        ? { ...scope, $or: [{ starredAt: { $lt: new Date(after.sortValue) } }, { starredAt: new Date(after.sortValue), _id: { $gt: after.id } }] }
        : scope;
      const found = await stars.stars.find(filter, { sort: { starredAt: -1, _id: 1 }, limit: limit + 1 });
      const page = found.slice(0, limit);
      const stored = await messages.find({ _id: { $in: page.map((star) => star.messageId) }, ...visibleTo(caller, new Date()) });
      const byId = new Map(stored.map((message) => [message._id, message]));
      const last = page[page.length - 1];
      return {
        success: true,
        message: `${stored.length} starred messages`,
        messages: page.flatMap((star) => {
          const message = byId.get(star.messageId);
          return message ? [messageView(message, { starred: true })] : [];
        }),
        nextCursor: found.length > limit && last ? encodeCursor({ sortValue: last.starredAt.getTime(), id: last._id }) : '',
      };
    },

    async setDisappearingTimer(request: SetDisappearingTimerRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const seconds = request.disappearingTimerSeconds;
      if (seconds !== 0 && (seconds < MIN_TIMER_SECONDS || seconds > MAX_TIMER_SECONDS)) {
        throw invalidArgument(`disappearing_timer_seconds must be 0 or between ${MIN_TIMER_SECONDS} and ${MAX_TIMER_SECONDS}`);
      }
      const target = await conversations.resolve(caller, { peerAddress: request.peerAddress, groupId: request.groupId });
      if (target.type === 'group') {
        const role = (await conversations.member(target.conversationId, caller))?.role;
        if (role !== 'owner' && role !== 'admin') throw permissionDenied('Only the owner and admins change the timer');
      }
      await conversations.setTimer(target, seconds);
      const notice = await sender.appendSystem(target, 'disappearing_timer_changed', { actor_address: caller, disappearing_timer_seconds: seconds });
      return {
        success: true,
        message: seconds === 0 ? 'Disappearing messages off' : 'Disappearing timer set',
        conversationId: target.conversationId,
        disappearingTimerSeconds: seconds,
        updatedAt: notice.sentAt.toISOString(),
      };
    },

    async viewOnceMessage(request: ViewOnceMessageRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      // A malformed peer or id names no message: the same 404 as an unknown one.
      const peer = isWalletAddress(request.peer) ? request.peer.toLowerCase() : undefined;
      const found = peer && request.id.length <= 64 ? await messages.findOne({ _id: request.id, senderAddress: peer, recipientAddress: caller, viewOnce: true, withheld: false }) : null;
      if (!found || !peer || peer === caller) throw notFound('No such view-once message');
      const now = new Date();
      if (found.viewedAt !== null || (found.expiresAt && found.expiresAt <= now)) throw gone('This view-once message was already viewed or has expired');
      // Only one of concurrent openers gets the content: the update matches while unviewed.
      const opened = await messages.findOneAndUpdate({ _id: found._id, viewedAt: null }, { $set: { viewedAt: now }, $unset: { ciphertext: '' } }, { returnDocument: 'before' });
      if (!opened) throw gone('This view-once message was already viewed');
      await events.durable('message.viewed', [peer, caller], {
        conversation_id: opened.conversationId,
        message_id: opened._id,
        viewer_address: caller,
        viewed_at: now.toISOString(),
      });
      return {
        success: true,
        message: 'View-once message opened; it cannot be opened again',
        chatMessage: messageView({ ...opened, viewedAt: now }, { openViewOnce: true }),
        mediaAvailableUntil: opened.mediaId === '' ? '' : new Date(now.getTime() + VIEWED_MEDIA_GRACE_MS).toISOString(),
      };
    },
  };
}

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
