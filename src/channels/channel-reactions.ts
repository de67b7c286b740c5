/**
 * Reactions on channel posts: plaintext emoji keys counted on the post, so that a post's counts
 * are read with the post in one read whatever the number of readers (the lead's decision for
 * broadcast, messages.proto `ReactToMessage`). Each reader has one record per post
 * (`channel_post_reactions`: its keys, at most MAX_REACTION_KEYS); the post holds a count per
 * key (`reactionCounts`, channel-posts.ts).
 *
 * A change is two writes: the reader's record first, conditional on what was read (so a key is
 * counted once per reader whatever the concurrency, and the bound holds), then the count's
 * `$inc`. A crash between the two leaves that one count one short (never too high, never a
 * reader counted twice); counts are a display figure, and the reader records stay exact. The
 * count's write also marks the post for the change log, where the channel change sweeper
 * logs the latest counts of a post once per sweep (channel-change-sweeper.ts).
 */
import { ConnectError } from '@connectrpc/connect';
import { conflict } from '../platform/errors/api-error.js';
import type { Collection, DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import { DuplicateKeyError } from '../platform/store/document-store.js';
import { MAX_REACTION_KEYS } from '../messaging/relations/relation-rules.js';
import type { ChannelPosts } from './channel-posts.js';
import { countField } from './channel-view.js';
import { markedUnlogged } from './channel-change-log.js';

export interface StoredPostReaction {
  /** `<post id>|<reader>` */
  _id: string;
  postId: string;
  channelId: string;
  readerAddress: string;
  keys: string[];
  /** Raised by every change: the condition of the next one. */
  revision: number;
  updatedAt: Date;
}

export const CHANNEL_POST_REACTIONS = 'channel_post_reactions';

export const channelReactionIndexes: IndexSpec[] = [
  { collection: CHANNEL_POST_REACTIONS, name: 'by_channel', key: { channelId: 1 } },
  { collection: CHANNEL_POST_REACTIONS, name: 'by_reader', key: { readerAddress: 1 } },
  { collection: CHANNEL_POST_REACTIONS, name: 'by_post', key: { postId: 1 } },
];

const recordId = (postId: string, reader: string) => `${postId}|${reader}`;
/** Lost races of one reader on one post before answering 409. */
const ATTEMPTS = 5;

export class ChannelReactions {
  readonly records: Collection<StoredPostReaction>;

  constructor(
    store: DocumentStore,
    private readonly posts: ChannelPosts,
  ) {
    this.records = store.collection<StoredPostReaction>(CHANNEL_POST_REACTIONS);
  }

  /** Adds or removes one key of the reader; answers the reader's keys after the change. */
  async change(
    post: { _id: string; channelId: string },
    reader: string,
    key: string,
    add: boolean,
  ): Promise<string[]> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const record = await this.records.findOne({ _id: recordId(post._id, reader) });
      const keys = record?.keys ?? [];
      if (add === keys.includes(key)) return keys;
      if (add && keys.length >= MAX_REACTION_KEYS)
        throw conflict(
          `A reader puts at most ${MAX_REACTION_KEYS} reactions on a post`,
          'REACTION_LIMIT',
        );
      const next = add ? [...keys, key] : keys.filter((each) => each !== key);
      if (!(await this.replaceKeys(post, reader, record, next))) continue;
      // The count and the mark for the change log in one write: the sweeper logs the counts.
      const at = new Date();
      await this.posts.posts.updateOne(
        { _id: post._id },
        markedUnlogged(
          { $inc: { [`reactionCounts.${countField(key)}`]: add ? 1 : -1 } },
          'reactions',
          at,
        ),
      );
      this.posts.markedUnlogged(at);
      return next;
    }
    throw conflict('Reactions changed meanwhile; try again');
  }

  /** The reader's keys on each of these posts. */
  async keysOf(reader: string, postIds: readonly string[]): Promise<Map<string, string[]>> {
    if (postIds.length === 0) return new Map();
    const records = await this.records.find({
      _id: { $in: postIds.map((postId) => recordId(postId, reader)) },
    });
    return new Map(records.map((record) => [record.postId, record.keys]));
  }

  /**
   * Account walks: each key of `from` is taken off and given to `to` (a key `to` already has
   * counts once; past `to`'s bound of keys the rest are dropped), one key at a time through
   * `change`, so a repeat after a crash goes on where it stopped.
   */
  async moveReader(from: string, to: string): Promise<void> {
    for (const record of await this.records.find({ readerAddress: from })) {
      const post = { _id: record.postId, channelId: record.channelId };
      for (const key of record.keys) {
        await this.change(post, from, key, false);
        await this.change(post, to, key, true).catch((error: unknown) => {
          if (!(error instanceof ConnectError)) throw error;
        });
      }
      await this.records.deleteOne({ _id: record._id });
    }
  }

  /** Account deletion: the reader's keys come off the counts, then its records go. */
  async removeReader(address: string): Promise<void> {
    for (const record of await this.records.find({ readerAddress: address })) {
      const post = { _id: record.postId, channelId: record.channelId };
      for (const key of record.keys) await this.change(post, address, key, false);
      await this.records.deleteOne({ _id: record._id });
    }
  }

  /** A deleted post's reactions go (its counts are unset with its content). */
  async removePost(postId: string): Promise<void> {
    await this.records.deleteMany({ postId });
  }

  async removeChannel(channelId: string): Promise<void> {
    await this.records.deleteMany({ channelId });
  }

  /** The write of a reader's keys, conditional on the record read (absent, or its keys). */
  private async replaceKeys(
    post: { _id: string; channelId: string },
    reader: string,
    record: StoredPostReaction | null,
    keys: string[],
  ): Promise<boolean> {
    const _id = recordId(post._id, reader);
    const updatedAt = new Date();
    if (!record) {
      try {
        await this.records.insertOne({
          _id,
          postId: post._id,
          channelId: post.channelId,
          readerAddress: reader,
          keys,
          revision: 1,
          updatedAt,
        });
        return true;
      } catch (error) {
        if (error instanceof DuplicateKeyError) return false;
        throw error;
      }
    }
    const { matchedCount } = await this.records.updateOne(
      { _id, revision: record.revision },
      { $set: { keys, updatedAt }, $inc: { revision: 1 } },
    );
    return matchedCount === 1;
  }
}
