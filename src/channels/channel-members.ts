/**
 * Who holds a role in which channel (`channel_members`): one record per owner, admin and
 * subscriber, and every query of that collection. A post writes none of these: subscribers
 * learn of posts from the channel's topic and catch up by the channel's own sequence.
 */
import type {
  Collection,
  DocumentStore,
  IndexSpec,
  StoreFilter,
} from '../platform/store/document-store.js';
import { DuplicateKeyError } from '../platform/store/document-store.js';

export type ChannelRole = 'owner' | 'admin' | 'subscriber';

export interface ChannelMember {
  /** `<channel id>|<address>` */
  _id: string;
  channelId: string;
  address: string;
  role: ChannelRole;
  since: Date;
}

export const CHANNEL_MEMBERS = 'channel_members';

export const channelMemberIndexes: IndexSpec[] = [
  { collection: CHANNEL_MEMBERS, name: 'by_address', key: { address: 1, channelId: 1 } },
  { collection: CHANNEL_MEMBERS, name: 'by_channel_role', key: { channelId: 1, role: 1 } },
];

export const memberId = (channelId: string, address: string) => `${channelId}|${address}`;

const ROLE_RANK: Record<ChannelRole, number> = { owner: 3, admin: 2, subscriber: 1 };
export const strongerRole = (a: ChannelRole, b: ChannelRole): ChannelRole =>
  ROLE_RANK[a] >= ROLE_RANK[b] ? a : b;

export class ChannelMembers {
  readonly members: Collection<ChannelMember>;

  constructor(store: DocumentStore) {
    this.members = store.collection<ChannelMember>(CHANNEL_MEMBERS);
  }

  find(channelId: string, address: string): Promise<ChannelMember | null> {
    return this.members.findOne({ _id: memberId(channelId, address) });
  }

  /** The caller's records among `channelIds`, by channel id. */
  async rolesAmong(
    address: string,
    channelIds: readonly string[],
  ): Promise<Map<string, ChannelRole>> {
    const found = await this.members.find({
      _id: { $in: channelIds.map((id) => memberId(id, address)) },
    });
    return new Map(found.map((member) => [member.channelId, member.role]));
  }

  ofAddress(address: string): Promise<ChannelMember[]> {
    return this.members.find({ address });
  }

  countOf(address: string): Promise<number> {
    return this.members.countDocuments({ address });
  }

  admins(channelId: string): Promise<ChannelMember[]> {
    return this.members.find({ channelId, role: 'admin' });
  }

  /** Inserts the record; false when the user already had one in the channel. */
  async add(member: Omit<ChannelMember, '_id'>): Promise<boolean> {
    try {
      await this.members.insertOne({ _id: memberId(member.channelId, member.address), ...member });
      return true;
    } catch (error) {
      if (error instanceof DuplicateKeyError) return false;
      throw error;
    }
  }

  /** Changes a role only if it is still `from` (so a repeated or racing change counts once). */
  async changeRole(
    channelId: string,
    address: string,
    from: ChannelRole,
    to: ChannelRole,
  ): Promise<boolean> {
    const { modifiedCount } = await this.members.updateOne(
      { _id: memberId(channelId, address), role: from },
      { $set: { role: to } },
    );
    return modifiedCount > 0;
  }

  /** Removes the record if it still has `role`; true when it did. */
  async remove(channelId: string, address: string, role: ChannelRole): Promise<boolean> {
    const { deletedCount } = await this.members.deleteOne({
      _id: memberId(channelId, address),
      role,
    });
    return deletedCount > 0;
  }

  async removeChannel(channelId: string): Promise<void> {
    await this.members.deleteMany({ channelId });
  }

  /** Every record in (address, channel) order, from after the given position, a batch at a time. */
  batchAfter(
    after: { address: string; channelId: string } | undefined,
    limit: number,
  ): Promise<ChannelMember[]> {
    const filter: StoreFilter<ChannelMember> = after
      ? {
          $or: [
            { address: { $gt: after.address } },
            { address: after.address, channelId: { $gt: after.channelId } },
          ],
        }
      : {};
    return this.members.find(filter, { sort: { address: 1, channelId: 1 }, limit });
  }

  /** Every follower's address (an `@everyone` mention wakes them all; owners and admins only). */
  async ofChannel(channelId: string): Promise<Pick<ChannelMember, 'address'>[]> {
    return this.members.find({ channelId }, { projection: { address: 1 } });
  }

  /** Member ids of the channel, a batch at a time (for deletion). */
  inChannel(channelId: string, limit: number): Promise<ChannelMember[]> {
    return this.members.find({ channelId }, { limit });
  }
}
