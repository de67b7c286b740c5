/**
 * A broadcast channel as stored (`channels`), and every query of that collection. Who holds
 * which role is in `channel_members` (channel-members.ts); the posts in `channel_posts`.
 */
import { randomBytes } from 'node:crypto';
import type { CursorPosition } from '../platform/api/page-cursor.js';
import { encodeCursor } from '../platform/api/page-cursor.js';
import type {
  Collection,
  DocumentStore,
  IndexSpec,
  StoreFilter,
} from '../platform/store/document-store.js';

export interface StoredChannel {
  /** 128 random bits, base64url: a private channel's id is its invitation. */
  _id: string;
  name: string;
  /** `name` lowercased, for the directory search. */
  nameLower: string;
  description: string;
  avatarMediaId: string;
  ownerAddress: string;
  isPublic: boolean;
  createdAt: Date;
  /** Subscribers other than the owner and the admins. */
  subscriberCount: number;
  lastPostAt: Date | null;
  /** The highest post number published (raised after each post; the posts are the record). */
  lastSequence: number;
}

export const CHANNELS = 'channels';

export const channelIndexes: IndexSpec[] = [
  {
    collection: CHANNELS,
    name: 'public_directory',
    key: { isPublic: 1, subscriberCount: -1, _id: 1 },
  },
  { collection: CHANNELS, name: 'by_owner', key: { ownerAddress: 1 } },
];

export const newChannelId = () => randomBytes(16).toString('base64url');

/** Ids longer than this were never issued: they are unknown without a lookup. */
const MAX_CHANNEL_ID_LENGTH = 64;

export interface DirectoryPage {
  readonly items: StoredChannel[];
  readonly nextCursor: string;
}

export class ChannelRepository {
  readonly channels: Collection<StoredChannel>;

  constructor(store: DocumentStore) {
    this.channels = store.collection<StoredChannel>(CHANNELS);
  }

  find(channelId: string): Promise<StoredChannel | null> {
    return channelId.length > MAX_CHANNEL_ID_LENGTH
      ? Promise.resolve(null)
      : this.channels.findOne({ _id: channelId });
  }

  findMany(channelIds: readonly string[]): Promise<StoredChannel[]> {
    return this.channels.find({ _id: { $in: [...channelIds] } });
  }

  async insert(channel: StoredChannel): Promise<void> {
    await this.channels.insertOne(channel);
  }

  async update(
    channelId: string,
    changes: Partial<Pick<StoredChannel, 'name' | 'nameLower' | 'description' | 'avatarMediaId'>>,
  ): Promise<void> {
    await this.channels.updateOne({ _id: channelId }, { $set: changes });
  }

  async addSubscribers(channelId: string, delta: number): Promise<void> {
    if (delta !== 0)
      await this.channels.updateOne({ _id: channelId }, { $inc: { subscriberCount: delta } });
  }

  async recordPost(channelId: string, sequence: number, at: Date): Promise<void> {
    await this.channels.updateOne(
      { _id: channelId },
      { $max: { lastSequence: sequence, lastPostAt: at } },
    );
  }

  /** Public channels, most subscribers first (ties by id), optionally whose name contains `query`. */
  async directory(
    query: string,
    limit: number,
    after: CursorPosition | undefined,
  ): Promise<DirectoryPage> {
    const scope: StoreFilter<StoredChannel> = { isPublic: true };
    if (query !== '') scope.nameLower = { $regex: escapeRegex(query.toLowerCase()) };
    const filter = after
      ? ({
          ...scope,
          $or: [
            { subscriberCount: { $lt: after.sortValue } },
            { subscriberCount: after.sortValue, _id: { $gt: after.id } },
          ],
        } as StoreFilter<StoredChannel>)
      : scope;
    const found = await this.channels.find(filter, {
      sort: { subscriberCount: -1, _id: 1 },
      limit: limit + 1,
    });
    const items = found.slice(0, limit);
    const last = items[items.length - 1];
    return {
      items,
      nextCursor:
        found.length > limit && last
          ? encodeCursor({ sortValue: last.subscriberCount, id: last._id })
          : '',
    };
  }

  ownedBy(address: string): Promise<StoredChannel[]> {
    return this.channels.find({ ownerAddress: address });
  }

  async transferOwnership(from: string, to: string): Promise<void> {
    await this.channels.updateMany({ ownerAddress: from }, { $set: { ownerAddress: to } });
  }

  async delete(channelId: string): Promise<void> {
    await this.channels.deleteOne({ _id: channelId });
  }
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
