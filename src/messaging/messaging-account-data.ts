/**
 * Messaging's records in an account move or deletion.
 *
 * A move keeps the history: each direct chat, whose id names both addresses, becomes the chat
 * of the new address with the same peer (the conversation record, its messages, stars of it and
 * the peer's member record follow; the account's own member record moves last, since it is how
 * a resumed move finds the chats left to do); group and channel member records, the messages
 * the account sent and received, and its stars are re-keyed. The new wallet has no account
 * (recovery refuses one that has), so nothing exists at the new keys to merge with; a record
 * that does is kept.
 *
 * A deletion removes the account's stars, its own side of its direct chats (the peers keep
 * theirs and the history they hold) and the messages not yet delivered to it. Group and
 * channel memberships are the groups' and channels' owners' (ownership passes as in LeaveGroup).
 *
 * Relations: a move re-keys the account's encrypted reactions, the pins it made, its place in
 * messages' `hiddenFor` and `mentions`, and a moved direct chat's reactions and pins; a
 * deletion removes its reactions and takes its address off the pins it made and the messages it
 * hid (the pins stay: they are the conversation's).
 */
import type { AccountDataOwner } from '../platform/account-data/account-data-owner.js';
import type { Collection, DocumentStore } from '../platform/store/document-store.js';
import { rekeyDocuments } from '../platform/store/rekey-documents.js';
import { directConversationId, memberId } from './conversations/conversation.js';
import type { Conversations } from './conversations/conversations.js';
import { MESSAGE_STARS } from './messages/stars.js';
import type { MessageStar } from './messages/stars.js';
import type { StoredMessage } from './messages/stored-message.js';
import { MESSAGE_REACTIONS } from './messages/encrypted-reactions.js';
import type { StoredReaction } from './messages/encrypted-reactions.js';
import { PINNED_MESSAGES } from './relations/pins.js';
import type { StoredPin } from './relations/pins.js';

export class MessagingAccountData implements AccountDataOwner {
  readonly name = 'messaging';
  private readonly stars: Collection<MessageStar>;
  private readonly reactions: Collection<StoredReaction>;
  private readonly pins: Collection<StoredPin>;

  constructor(
    store: DocumentStore,
    private readonly conversations: Conversations,
    private readonly messages: Collection<StoredMessage>,
  ) {
    this.stars = store.collection<MessageStar>(MESSAGE_STARS);
    this.reactions = store.collection<StoredReaction>(MESSAGE_REACTIONS);
    this.pins = store.collection<StoredPin>(PINNED_MESSAGES);
  }

  async moveAccount(from: string, to: string): Promise<void> {
    const { members } = this.conversations;
    for (
      let chats = await members.find({ address: from, type: 'direct' }, { limit: 100 });
      chats.length > 0;
      chats = await members.find({ address: from, type: 'direct' }, { limit: 100 })
    ) {
      for (const own of chats)
        await this.moveDirectChat(own.conversationId, own.peerAddress, from, to);
    }
    await rekeyDocuments(members, { address: from }, (member) => ({
      ...member,
      _id: memberId(member.conversationId, to),
      address: to,
    }));
    await this.messages.updateMany({ senderAddress: from }, { $set: { senderAddress: to } });
    await this.messages.updateMany({ recipientAddress: from }, { $set: { recipientAddress: to } });
    await rekeyDocuments(this.stars, { address: from }, (star) => ({
      ...star,
      _id: `${to}|${star.messageId}`,
      address: to,
    }));
    await this.moveRelations(from, to);
  }

  /** The account's reactions, pins, hidden messages and mentions follow it. */
  private async moveRelations(from: string, to: string): Promise<void> {
    await rekeyDocuments(this.reactions, { reactorAddress: from }, (reaction) => ({
      ...reaction,
      _id: `${reaction.messageId}|${to}`,
      reactorAddress: to,
    }));
    await this.pins.updateMany({ pinnedBy: from }, { $set: { pinnedBy: to } });
    // Add the new address before removing the old, so a repeat after a crash loses neither.
    for (const field of ['hiddenFor', 'mentions'] as const) {
      await this.messages.updateMany({ [field]: from }, { $addToSet: { [field]: to } });
      await this.messages.updateMany({ [field]: from }, { $pull: { [field]: from } });
    }
  }

  async deleteAccount(address: string): Promise<void> {
    await this.stars.deleteMany({ address });
    await this.reactions.deleteMany({ reactorAddress: address });
    await this.pins.updateMany({ pinnedBy: address }, { $set: { pinnedBy: '' } });
    await this.messages.updateMany({ hiddenFor: address }, { $pull: { hiddenFor: address } });
    await this.conversations.members.deleteMany({ address, type: 'direct' });
    await this.messages.deleteMany({ recipientAddress: address, status: 'sent' });
  }

  private async moveDirectChat(
    chat: string,
    peer: string,
    from: string,
    to: string,
  ): Promise<void> {
    const { conversations, members } = this.conversations;
    const moved = directConversationId(to, peer);
    const record = await conversations.findOne({ _id: chat });
    if (record) {
      const { _id, ...kept } = record;
      await conversations.updateOne({ _id: moved }, { $setOnInsert: kept }, { upsert: true });
    }
    await this.messages.updateMany({ conversationId: chat }, { $set: { conversationId: moved } });
    await this.stars.updateMany({ conversationId: chat }, { $set: { conversationId: moved } });
    await this.reactions.updateMany({ conversationId: chat }, { $set: { conversationId: moved } });
    await rekeyDocuments(this.pins, { conversationId: chat }, (pin) => ({
      ...pin,
      _id: `${moved}|${pin.messageId}`,
      conversationId: moved,
    }));
    await rekeyDocuments(members, { _id: memberId(chat, peer) }, (member) => ({
      ...member,
      _id: memberId(moved, peer),
      conversationId: moved,
      peerAddress: to,
    }));
    await conversations.deleteOne({ _id: chat });
    await rekeyDocuments(members, { _id: memberId(chat, from) }, (member) => ({
      ...member,
      _id: memberId(moved, to),
      conversationId: moved,
      address: to,
    }));
  }
}
