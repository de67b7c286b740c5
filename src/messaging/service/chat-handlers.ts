/** The chats (chats/): ListChats, GetPeerInfo, SendTyping and SetDisappearingTimer. */
import type { HandlerContext } from '@connectrpc/connect';
import type {
  GetPeerInfoRequest,
  ListChatsRequest,
  SendTypingRequest,
  SetDisappearingTimerRequest,
} from '../../gen/service/v1/messages_pb.js';
import { requireCaller } from '../../identity/auth/caller.js';
import { decodeCursor, pageSize } from '../../platform/api/page-cursor.js';
import { invalidArgument } from '../../platform/errors/api-error.js';
import type { ChatList } from '../chats/chat-list.js';
import type { DisappearingTimer } from '../chats/disappearing-timer.js';
import type { PeerInfo } from '../chats/peer-info.js';
import type { Typing } from '../chats/typing.js';
import type { Conversations } from '../conversations/conversations.js';

export interface ChatHandlersDependencies {
  readonly conversations: Conversations;
  readonly chatList: ChatList;
  readonly peerInfo: PeerInfo;
  readonly typing: Typing;
  readonly disappearingTimer: DisappearingTimer;
}

export function chatHandlers(deps: ChatHandlersDependencies) {
  const { conversations } = deps;

  return {
    async listChats(request: ListChatsRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const page = await deps.chatList.page(
        caller,
        pageSize(request.pageSize),
        decodeCursor(request.cursor),
      );
      return { success: true, message: `${page.chats.length} chats`, ...page };
    },

    async getPeerInfo(request: GetPeerInfoRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const peer = await conversations.existingUser(request.address, 'address');
      return { success: true, message: 'Peer found', peer: await deps.peerInfo.of(caller, peer) };
    },

    async sendTyping(request: SendTypingRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const state = request.state === '' ? 'typing' : request.state;
      if (state !== 'typing' && state !== 'paused')
        throw invalidArgument('state must be typing or paused');
      const target = await conversations.resolve(caller, {
        peerAddress: request.peerAddress,
        groupId: request.groupId,
      });
      const told = await deps.typing.tell(caller, target, state);
      return { success: true, message: told > 0 ? 'Typing indicator sent' : 'Nobody to tell' };
    },

    async setDisappearingTimer(request: SetDisappearingTimerRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const seconds = request.disappearingTimerSeconds;
      const changed = await deps.disappearingTimer.set(
        caller,
        { peerAddress: request.peerAddress, groupId: request.groupId },
        seconds,
      );
      return {
        success: true,
        message: seconds === 0 ? 'Disappearing messages off' : 'Disappearing timer set',
        conversationId: changed.conversationId,
        disappearingTimerSeconds: seconds,
        updatedAt: changed.updatedAt.toISOString(),
      };
    },
  };
}
