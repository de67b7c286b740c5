/**
 * When a member was last removed from a group: a removed member may come back only with an
 * invite code created after its removal (the codes it could have seen before do not let it in).
 */
import type { Collection, DocumentStore, IndexSpec } from '../platform/store/document-store.js';

export interface GroupRemoval {
  /** `<group id>|<address>` */
  _id: string;
  groupId: string;
  address: string;
  removedAt: Date;
}

export const GROUP_REMOVALS = 'group_removals';

export const groupRemovalIndexes: IndexSpec[] = [
  { collection: GROUP_REMOVALS, name: 'by_address', key: { address: 1 } },
];

const removalId = (groupId: string, address: string) => `${groupId}|${address}`;

export class GroupRemovals {
  readonly removals: Collection<GroupRemoval>;

  constructor(store: DocumentStore) {
    this.removals = store.collection<GroupRemoval>(GROUP_REMOVALS);
  }

  async record(groupId: string, address: string): Promise<void> {
    await this.removals.updateOne(
      { _id: removalId(groupId, address) },
      { $set: { groupId, address, removedAt: new Date() } },
      { upsert: true },
    );
  }

  async removedAt(groupId: string, address: string): Promise<Date | undefined> {
    return (await this.removals.findOne({ _id: removalId(groupId, address) }))?.removedAt;
  }

  async forgetGroup(groupId: string): Promise<void> {
    await this.removals.deleteMany({ groupId });
  }

  /** Re-keys `from`'s removals to `to` (the later removal wins where both have one). */
  async move(from: string, to: string): Promise<void> {
    for (const removal of await this.removals.find({ address: from })) {
      const existing = await this.removedAt(removal.groupId, to);
      if (!existing || existing < removal.removedAt)
        await this.removals.updateOne(
          { _id: removalId(removal.groupId, to) },
          { $set: { groupId: removal.groupId, address: to, removedAt: removal.removedAt } },
          { upsert: true },
        );
      await this.removals.deleteOne({ _id: removal._id });
    }
  }

  async forgetAddress(address: string): Promise<void> {
    await this.removals.deleteMany({ address });
  }
}
