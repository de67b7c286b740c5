/**
 * Users' chosen presence status. Stored (it outlives connections), and pushed as an ephemeral
 * `presence` event to the people who have a direct chat or a group with the user; users the
 * user has blocked are left out and always read `offline`.
 */
import type { BlockList } from '../contacts/block-list.js';
import type { MessagingEvents } from '../events/messaging-events.js';
import type { Collection, DocumentStore } from '../platform/store/document-store.js';
import type { ContactsAudience } from './contacts-audience.js';
import { rekeyDocuments } from '../platform/store/rekey-documents.js';

export const STATUSES = ['online', 'away', 'busy', 'offline'] as const;
export type Status = (typeof STATUSES)[number];

export interface PresenceRecord {
  /** The user's address. */
  _id: string;
  status: Status;
  statusText: string;
  updatedAt: Date;
}

export const PRESENCE = 'presence';

export class Presence {
  private readonly records: Collection<PresenceRecord>;

  constructor(
    store: DocumentStore,
    private readonly audience: ContactsAudience,
    private readonly blocks: BlockList,
    private readonly events: MessagingEvents,
  ) {
    this.records = store.collection<PresenceRecord>(PRESENCE);
  }

  async set(address: string, status: Status, statusText: string): Promise<PresenceRecord> {
    const record: PresenceRecord = { _id: address, status, statusText, updatedAt: new Date() };
    await this.records.updateOne(
      { _id: address },
      { $set: { status, statusText, updatedAt: record.updatedAt } },
      { upsert: true },
    );
    const audience = await this.audience.of(address);
    await this.events.ephemeral('presence', audience, {
      address,
      status,
      status_text: statusText,
      updated_at: record.updatedAt.toISOString(),
    });
    return record;
  }

  /** What `viewer` may see of `address`'s status: `offline` when `address` has blocked the viewer. */
  /** The status follows the account to its new address (recovery); an existing one there is kept. */
  async moveRecord(from: string, to: string): Promise<void> {
    await rekeyDocuments(this.records, { _id: from }, (record) => ({ ...record, _id: to }));
  }

  async removeRecord(address: string): Promise<void> {
    await this.records.deleteOne({ _id: address });
  }

  async seenBy(address: string, viewer: string): Promise<{ status: Status; statusText: string }> {
    const [record, blocked] = await Promise.all([
      this.records.findOne({ _id: address }),
      this.blocks.isBlocked(address, viewer),
    ]);
    if (!record || blocked) return { status: 'offline', statusText: '' };
    return { status: record.status, statusText: record.statusText };
  }
}
