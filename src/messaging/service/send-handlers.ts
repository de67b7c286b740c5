/**
 * SendMessage, SendVoice, SendVideo and SendFile: each checks its kind's shape, then hands the
 * send to the message sender, or to the channels area when only `channel_id` is set. A
 * SendMessage with `poll_id` goes to the polls area, which sends the poll back through them.
 */
import type { HandlerContext } from '@connectrpc/connect';
import type {
  Message,
  SendFileRequest,
  SendMessageRequest,
  SendVideoRequest,
  SendVoiceRequest,
} from '../../gen/service/v1/messages_pb.js';
import { requireCaller } from '../../identity/auth/caller.js';
import { invalidArgument } from '../../platform/errors/api-error.js';
import type { ChannelConversations } from '../conversations/channel-conversations-port.js';
import { requireClientMessageId } from '../messages/message-sender.js';
import type { MessageSender, SendRequest, SendResult } from '../messages/message-sender.js';
import type { PollSends } from '../messages/poll-sends-port.js';
import { messageView } from '../messages/message-view.js';
import { onlyChannel } from './channel-requests.js';

const MAX_DURATION_MS = 3_600_000;

type MediaSendRequest = SendVoiceRequest | SendVideoRequest | SendFileRequest;

export interface SendHandlersDependencies {
  readonly sender: MessageSender;
  /** Channels, which the channels area keeps: messaging routes `channel_id` requests there. */
  readonly channels: ChannelConversations;
  readonly polls: PollSends;
}

export function sendHandlers(deps: SendHandlersDependencies) {
  const { sender, channels, polls } = deps;

  const sent = (result: SendResult) => accepted(messageView(result.message), result.duplicate);

  /**
   * A send to a user or a group goes to the sender; one to a channel (only `channel_id` set) is
   * published by the channels area, which checks the kind, body and media as PublishChannelPost.
   */
  const send = async (caller: string, request: SendRequest) => {
    if (!onlyChannel({ ...request, peerAddress: request.recipientAddress }))
      return sent(await sender.send(caller, request));
    if (request.viewOnce) throw invalidArgument('view_once is only for direct chats');
    const { message, duplicate } = await channels.publish(caller, request.channelId, request);
    return accepted(message, duplicate);
  };

  /** Voice, video and file: an upload of that kind is required; voice and video have a duration. */
  const sendMedia =
    (kind: 'voice' | 'video' | 'file') =>
    async (request: MediaSendRequest, context: HandlerContext) => {
      const caller = requireCaller(context).address;
      if (request.mediaId === '') throw invalidArgument('media_id is required');
      const durationMs = 'durationMs' in request ? request.durationMs : 0;
      if (kind !== 'file' && (durationMs < 1 || durationMs > MAX_DURATION_MS))
        throw invalidArgument(`duration_ms must be between 1 and ${MAX_DURATION_MS}`);
      const viewOnce = 'viewOnce' in request ? request.viewOnce : false;
      return send(caller, {
        ...common(request),
        kind,
        mediaId: request.mediaId,
        durationMs,
        viewOnce,
      });
    };

  return {
    async sendMessage(request: SendMessageRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      if (request.pollId !== '') {
        const { message, duplicate } = await polls.send(caller, pollSendOf(request));
        return accepted(message, duplicate);
      }
      const kind = request.kind === '' ? 'text' : request.kind;
      if (kind !== 'text' && kind !== 'image')
        throw invalidArgument('kind must be text or image (other kinds have their own endpoints)');
      if (kind === 'text' && request.mediaId !== '')
        throw invalidArgument('media_id must be empty for text');
      if (kind === 'image' && request.mediaId === '')
        throw invalidArgument('media_id is required for image');
      return send(caller, {
        ...common(request),
        kind,
        mediaId: request.mediaId,
        durationMs: 0,
        viewOnce: request.viewOnce,
      });
    },

    sendVoice: sendMedia('voice'),
    sendVideo: sendMedia('video'),
    sendFile: sendMedia('file'),
  };
}

const accepted = (chatMessage: Message, duplicate: boolean) => ({
  success: true,
  message: duplicate ? 'Message already accepted' : 'Message sent',
  chatMessage,
  duplicate,
});

/** The target, ciphertext, reply and mention fields every send request shares. */
function common(
  request: SendMessageRequest | MediaSendRequest,
): Pick<
  SendRequest,
  | 'clientMessageId'
  | 'recipientAddress'
  | 'groupId'
  | 'channelId'
  | 'ciphertext'
  | 'replyToMessageId'
  | 'mentions'
  | 'frankingCommitment'
> {
  return {
    clientMessageId: request.clientMessageId,
    recipientAddress: request.recipientAddress,
    groupId: request.groupId,
    channelId: request.channelId,
    ciphertext: request.ciphertext,
    replyToMessageId: request.replyToMessageId,
    mentions: request.mentions,
    frankingCommitment: request.frankingCommitment,
  };
}

/**
 * A send of a poll: its target and idempotency key; nothing of a message's own (the server
 * reads the poll, so there is no ciphertext to carry, and a poll message is neither a reply
 * nor a mention).
 */
function pollSendOf(request: SendMessageRequest) {
  if (request.kind !== '' && request.kind !== 'poll')
    throw invalidArgument('kind must be empty or poll with poll_id');
  const extras = {
    ciphertext: request.ciphertext.length > 0,
    media_id: request.mediaId !== '',
    view_once: request.viewOnce,
    reply_to_message_id: request.replyToMessageId !== '',
    mentions: request.mentions.length > 0,
  };
  const given = Object.keys(extras).filter((field) => extras[field as keyof typeof extras]);
  if (given.length > 0) throw invalidArgument(`${given.join(', ')} must be empty with poll_id`);
  // Checked here too: a channel's poll post keeps its own key, so nothing else would.
  requireClientMessageId(request.clientMessageId);
  return {
    clientMessageId: request.clientMessageId,
    pollId: request.pollId,
    recipientAddress: request.recipientAddress,
    groupId: request.groupId,
    channelId: request.channelId,
  };
}
