/**
 * What people do to messages (messages.proto: EditMessage, DeleteMessage, DeleteMessageForMe,
 * ReactToMessage, RemoveReaction, PinMessage, UnpinMessage, ListPinnedMessages): each reads
 * its request's fields and hands them to the relation objects (relations/), which check the
 * target by one path for direct chats, groups and channels.
 */
import type { HandlerContext } from '@connectrpc/connect';
import type {
  DeleteMessageForMeRequest,
  DeleteMessageRequest,
  EditMessageRequest,
  ListPinnedMessagesRequest,
  Message,
  PinMessageRequest,
  ReactToMessageRequest,
  RemoveReactionRequest,
  UnpinMessageRequest,
} from '../../gen/service/v1/messages_pb.js';
import { requireCaller } from '../../identity/auth/caller.js';
import type { MessageDeletions } from '../relations/message-deletions.js';
import type { MessageEdits } from '../relations/message-edits.js';
import type { MessagePins } from '../relations/message-pins.js';
import type { MessageReactions } from '../relations/message-reactions.js';

export interface RelationHandlersDependencies {
  readonly edits: MessageEdits;
  readonly deletions: MessageDeletions;
  readonly reactions: MessageReactions;
  readonly pins: MessagePins;
}

const done = (message: string, chatMessage: Message) => ({
  success: true,
  message,
  chatMessage,
});

export function relationHandlers(deps: RelationHandlersDependencies) {
  return {
    async editMessage(request: EditMessageRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const edited = await deps.edits.edit(caller, request, request.messageId, request.ciphertext);
      return done('Message edited', edited);
    },

    async deleteMessage(request: DeleteMessageRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const tombstone = await deps.deletions.deleteForEveryone(caller, request, request.messageId);
      return done('Message deleted for everyone', tombstone);
    },

    async deleteMessageForMe(request: DeleteMessageForMeRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      await deps.deletions.deleteForMe(caller, request, request.messageId);
      return { success: true, message: 'Message deleted for you', messageId: request.messageId };
    },

    async reactToMessage(request: ReactToMessageRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const message = await deps.reactions.change(caller, request, request.messageId, {
        ciphertext: request.ciphertext,
        key: request.key,
        remove: false,
      });
      return done('Reaction set', message);
    },

    async removeReaction(request: RemoveReactionRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const message = await deps.reactions.change(caller, request, request.messageId, {
        ciphertext: new Uint8Array(),
        key: request.key,
        remove: true,
      });
      return done('Reaction removed', message);
    },

    async pinMessage(request: PinMessageRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      return done('Message pinned', await deps.pins.pin(caller, request, request.messageId));
    },

    async unpinMessage(request: UnpinMessageRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      return done('Message unpinned', await deps.pins.unpin(caller, request, request.messageId));
    },

    async listPinnedMessages(request: ListPinnedMessagesRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const messages = await deps.pins.list(caller, request);
      return { success: true, message: `${messages.length} pinned messages`, messages };
    },
  };
}
