/**
 * Delivery and read receipts. A direct message becomes `delivered` when its recipient first
 * reads it in a page of history, and `read` when the recipient's read marker passes it. The
 * read marker only moves forward (a conditional update, so concurrent MarkAsRead calls cannot
 * move it back); moving it tells the reader's other connections and the senders of the
 * messages it newly covers: in a direct chat the peer, in a group each member who sent one of
 * them (as Signal and WhatsApp show a sender who of the group has read its message), never a
 * user the reader has blocked, nor one no longer a member. A group message's `status` becomes
 * `read` once every member's marker has passed it. Channels keep markers but no receipts.
 */
import { invalidArgument, notFound } from '../../platform/errors/api-error.js';
import type { Collection, StoreFilter } from '../../platform/store/document-store.js';
import type { BlockList } from '../../contacts/block-list.js';
import type { MessagingEvents } from '../../events/messaging-events.js';
import { memberId } from '../conversations/conversation.js';
import type { Conversations, Target } from '../conversations/conversations.js';
import type { StoredMessage } from './stored-message.js';
import { isVisibleTo, visibleTo } from './visibility.js';

export interface ReadMarker {
  /** Whether this call moved the marker. */
  readonly moved: boolean;
  readonly lastReadMessageId: string;
  readonly unreadCount: number;
}

export class Receipts {
  constructor(
    private readonly messages: Collection<StoredMessage>,
    private readonly conversations: Conversations,
    private readonly blocks: BlockList,
    private readonly events: MessagingEvents,
  ) {}

  /**
   * The messages of a history page that reach their recipient for the first time become
   * `delivered` (in `page` too). In a group the reader's fetched position moves up, and the
   * messages every member has fetched become `delivered`.
   */
  async markDelivered(reader: string, target: Target, page: StoredMessage[]): Promise<void> {
    if (target.type === 'group') return this.markGroupDelivered(reader, target, page);
    const delivered = page.filter(
      (message) =>
        message.recipientAddress === reader &&
        message.senderAddress !== reader &&
        message.status === 'sent',
    );
    if (delivered.length === 0) return;
    await this.messages.updateMany(
      { _id: { $in: delivered.map((message) => message._id) }, status: 'sent' },
      { $set: { status: 'delivered' } },
    );
    for (const message of delivered) message.status = 'delivered';
  }

  /** Moves the reader's marker up to `upToMessageId` (a message of the conversation the reader can see). */
  async markRead(reader: string, target: Target, upToMessageId: string): Promise<ReadMarker> {
    if (upToMessageId === '') throw invalidArgument('up_to_message_id is required');
    const now = new Date();
    const upTo =
      upToMessageId.length <= 64
        ? await this.messages.findOne({ _id: upToMessageId, conversationId: target.conversationId })
        : null;
    if (!upTo || !isVisibleTo(upTo, reader, now) || upTo.sequence < (target.historyFrom ?? 0))
      throw notFound('No such message in this conversation');
    const before = await this.conversations.members.findOneAndUpdate(
      { _id: memberId(target.conversationId, reader), lastReadSequence: { $lt: upTo.sequence } },
      { $set: { lastReadSequence: upTo.sequence, lastReadMessageId: upTo._id } },
      { returnDocument: 'before' },
    );
    const moved = before !== null;
    const member = moved
      ? { lastReadSequence: upTo.sequence, lastReadMessageId: upTo._id }
      : await this.conversations.member(target.conversationId, reader);
    if (moved && target.type !== 'channel') {
      const readFilter: StoreFilter<StoredMessage> = {
        conversationId: target.conversationId,
        sequence: { $lte: upTo.sequence },
        senderAddress: { $ne: reader },
        status: { $ne: 'read' },
        withheld: false,
      };
      if (target.type === 'direct')
        await this.messages.updateMany(
          { ...readFilter, recipientAddress: reader },
          { $set: { status: 'read' } },
        );
      if (target.type === 'group') await this.markReadByEveryone(target);
      const told =
        target.type === 'direct'
          ? [target.peer]
          : await this.groupSendersReadBetween(
              reader,
              target,
              before.lastReadSequence,
              upTo.sequence,
              now,
            );
      const blocked = await this.blocks.blockedAmong(reader, told);
      await this.events.durable(
        'message.read',
        [reader, ...told.filter((address) => address !== reader && !blocked.has(address))],
        {
          conversation_id: target.conversationId,
          reader_address: reader,
          up_to_message_id: upTo._id,
          up_to_sequence: upTo.sequence,
          read_at: now.toISOString(),
        },
      );
    }
    const lastRead = member?.lastReadSequence ?? 0;
    const unreadCount = await this.messages.countDocuments({
      conversationId: target.conversationId,
      sequence: { $gt: lastRead },
      senderAddress: { $ne: reader },
      ...visibleTo(reader, now),
    });
    return {
      moved,
      lastReadMessageId: member?.lastReadMessageId ?? '',
      unreadCount,
    };
  }

  private async markGroupDelivered(
    reader: string,
    target: Target,
    page: StoredMessage[],
  ): Promise<void> {
    const newest = page[page.length - 1]?.sequence;
    if (newest === undefined) return;
    const moved = await this.conversations.members.updateOne(
      { _id: memberId(target.conversationId, reader) },
      { $max: { lastFetchedSequence: newest } },
    );
    if (moved.modifiedCount === 0) return;
    const [slowest] = await this.conversations.members.find(
      { conversationId: target.conversationId },
      { sort: { lastFetchedSequence: 1 }, limit: 1 },
    );
    const everyoneHas = slowest?.lastFetchedSequence ?? 0;
    if (everyoneHas === 0) return;
    await this.messages.updateMany(
      {
        conversationId: target.conversationId,
        sequence: { $lte: everyoneHas },
        kind: { $ne: 'system' },
        status: 'sent',
      },
      { $set: { status: 'delivered' } },
    );
    for (const message of page)
      if (message.sequence <= everyoneHas && message.kind !== 'system' && message.status === 'sent')
        message.status = 'delivered';
  }

  /**
   * The members who sent a message the reader's marker newly covers (after `from`, up to `upTo`,
   * from the reader's joining on, that the reader can see): who is told of the read. A sender
   * who has left the group is no longer told.
   */
  private async groupSendersReadBetween(
    reader: string,
    target: Target,
    from: number,
    upTo: number,
    now: Date,
  ): Promise<string[]> {
    const read = await this.messages.find(
      {
        conversationId: target.conversationId,
        sequence: { $gt: Math.max(from, (target.historyFrom ?? 0) - 1), $lte: upTo },
        senderAddress: { $ne: reader },
        kind: { $ne: 'system' },
        ...visibleTo(reader, now),
      },
      { projection: { senderAddress: 1 } },
    );
    const senders = new Set(read.map((message) => message.senderAddress));
    if (senders.size === 0) return [];
    const stillMembers = await this.conversations.members.find(
      { _id: { $in: [...senders].map((sender) => memberId(target.conversationId, sender)) } },
      { projection: { address: 1 } },
    );
    return stillMembers.map((member) => member.address);
  }

  /** A group's messages become `read` once every member's marker has passed them. */
  private async markReadByEveryone(target: Target): Promise<void> {
    const [slowest] = await this.conversations.members.find(
      { conversationId: target.conversationId },
      { sort: { lastReadSequence: 1 }, limit: 1 },
    );
    if (!slowest || slowest.lastReadSequence === 0) return;
    await this.messages.updateMany(
      {
        conversationId: target.conversationId,
        sequence: { $lte: slowest.lastReadSequence },
        kind: { $ne: 'system' },
        status: { $ne: 'read' },
      },
      { $set: { status: 'read' } },
    );
  }
}
