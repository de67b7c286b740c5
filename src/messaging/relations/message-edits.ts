/**
 * EditMessage: the sender replaces its message's ciphertext, in a direct chat, a group or a
 * channel, by the same rules (relation-rules.ts `checkEditable`). The write is conditional on
 * the edit count read and on the message not being deleted, so of concurrent edits and
 * deletions each applies once and in order; the loser reads the message again and is checked
 * again. The previous ciphertext is not kept (messages.proto): the message document holds the
 * current one only, and the earlier events in the replay logs are rewritten to it.
 */
import { Binary } from 'bson';
import type { Message } from '../../gen/service/v1/messages_pb.js';
import { conflict, invalidArgument } from '../../platform/errors/api-error.js';
import type { Collection } from '../../platform/store/document-store.js';
import type { ChannelConversations } from '../conversations/channel-conversations-port.js';
import type { TargetFields } from '../conversations/conversations.js';
import { MAX_CIPHERTEXT_BYTES } from '../messages/message-sender.js';
import { messageJson } from '../messages/message-view.js';
import type { StoredMessage } from '../messages/stored-message.js';
import { editDedupeKey } from './relation-events.js';
import type { RelationEvents } from './relation-events.js';
import { checkEditable } from './relation-rules.js';
import type { RelationTargets } from './relation-targets.js';
import type { RelationViews } from './relation-views.js';

/** Reads and checks again after losing a race this many times before answering 409. */
const ATTEMPTS = 3;

export class MessageEdits {
  constructor(
    private readonly targets: RelationTargets,
    private readonly messages: Collection<StoredMessage>,
    private readonly channels: ChannelConversations,
    private readonly events: RelationEvents,
    private readonly views: RelationViews,
    private readonly windowMs: number,
  ) {}

  async edit(
    caller: string,
    fields: TargetFields,
    messageId: string,
    ciphertext: Uint8Array,
  ): Promise<Message> {
    if (ciphertext.length === 0 || ciphertext.length > MAX_CIPHERTEXT_BYTES)
      throw invalidArgument(`ciphertext must have 1 to ${MAX_CIPHERTEXT_BYTES} bytes`);
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const target = await this.targets.resolve(caller, fields, messageId);
      const now = new Date();
      checkEditable(target.relation, caller, now, this.windowMs);
      const { editCount } = target.relation;
      const edited =
        target.kind === 'channel'
          ? await this.channels.editPost(target.channelId, messageId, ciphertext, editCount, now)
          : await this.editMessage(caller, messageId, ciphertext, editCount, now);
      if (edited) return edited;
    }
    throw conflict('The message kept changing meanwhile; try again');
  }

  private async editMessage(
    caller: string,
    messageId: string,
    ciphertext: Uint8Array,
    editCount: number,
    now: Date,
  ): Promise<Message | null> {
    const updated = await this.messages.findOneAndUpdate(
      {
        _id: messageId,
        deletedAt: { $exists: false },
        ...(editCount === 0
          ? { $or: [{ editCount: { $exists: false } }, { editCount: 0 }] }
          : { editCount }),
      },
      { $set: { ciphertext: new Binary(ciphertext), editedAt: now }, $inc: { editCount: 1 } },
      { returnDocument: 'after' },
    );
    if (!updated) return null;
    const readers = await this.events.readersOf(updated);
    await this.events.tell(
      'message.edited',
      updated,
      { message: messageJson(await this.views.view(updated)) },
      { recipients: readers, dedupeKey: editDedupeKey(updated._id, updated.editCount ?? 1) },
    );
    await this.events.scrubLogged(updated, readers);
    return this.views.view(updated, caller);
  }
}
