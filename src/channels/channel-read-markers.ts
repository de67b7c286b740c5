/**
 * Each follower's read marker in a channel (`channel_read_markers`): one record per
 * (follower, channel), written only when the follower marks posts read, never when a post is
 * published. A follower's unread count is the channel's last post number minus its marker's,
 * so a post costs no write per subscriber. No record means nothing read yet.
 */
import type { Collection, DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import { DuplicateKeyError } from '../platform/store/document-store.js';
import { rekeyDocuments } from '../platform/store/rekey-documents.js';
import { memberId } from './channel-members.js';

export interface ChannelReadMarker {
  /** `<channel id>|<address>`, as the member records. */
  _id: string;
  channelId: string;
  address: string;
  lastReadSequence: number;
  lastReadMessageId: string;
}

export const CHANNEL_READ_MARKERS = 'channel_read_markers';

export const channelReadMarkerIndexes: IndexSpec[] = [
  { collection: CHANNEL_READ_MARKERS, name: 'by_address', key: { address: 1, channelId: 1 } },
  { collection: CHANNEL_READ_MARKERS, name: 'by_channel', key: { channelId: 1 } },
];

export class ChannelReadMarkers {
  readonly markers: Collection<ChannelReadMarker>;

  constructor(store: DocumentStore) {
    this.markers = store.collection<ChannelReadMarker>(CHANNEL_READ_MARKERS);
  }

  find(channelId: string, address: string): Promise<ChannelReadMarker | null> {
    return this.markers.findOne({ _id: memberId(channelId, address) });
  }

  /** The caller's markers among `channelIds`, by channel id. */
  async among(
    address: string,
    channelIds: readonly string[],
  ): Promise<Map<string, ChannelReadMarker>> {
    const found = await this.markers.find({
      _id: { $in: channelIds.map((id) => memberId(id, address)) },
    });
    return new Map(found.map((marker) => [marker.channelId, marker]));
  }

  /** Moves the marker forward to the post (never back); true when it moved. */
  async advance(
    channelId: string,
    address: string,
    sequence: number,
    postId: string,
  ): Promise<boolean> {
    try {
      const { modifiedCount, upsertedId } = await this.markers.updateOne(
        { _id: memberId(channelId, address), lastReadSequence: { $lt: sequence } },
        {
          $set: { lastReadSequence: sequence, lastReadMessageId: postId },
          $setOnInsert: { channelId, address },
        },
        { upsert: true },
      );
      return modifiedCount > 0 || upsertedId !== undefined;
    } catch (error) {
      // The upsert met the record, which is already at or past the post.
      if (error instanceof DuplicateKeyError) return false;
      throw error;
    }
  }

  async forget(channelId: string, address: string): Promise<void> {
    await this.markers.deleteOne({ _id: memberId(channelId, address) });
  }

  async removeChannel(channelId: string): Promise<void> {
    await this.markers.deleteMany({ channelId });
  }

  async removeAddress(address: string): Promise<void> {
    await this.markers.deleteMany({ address });
  }

  /**
   * Re-keys `from`'s markers to `to`; where `to` already has a marker in the channel, the one
   * further ahead is kept.
   */
  async move(from: string, to: string): Promise<void> {
    for (const marker of await this.markers.find({ address: from })) {
      const existing = await this.find(marker.channelId, to);
      if (existing && existing.lastReadSequence >= marker.lastReadSequence)
        await this.forget(marker.channelId, from);
      else if (existing) {
        await this.markers.updateOne(
          { _id: existing._id },
          {
            $set: {
              lastReadSequence: marker.lastReadSequence,
              lastReadMessageId: marker.lastReadMessageId,
            },
          },
        );
        await this.forget(marker.channelId, from);
      }
    }
    await rekeyDocuments(this.markers, { address: from }, (marker) => ({
      ...marker,
      _id: memberId(marker.channelId, to),
      address: to,
    }));
  }
}
