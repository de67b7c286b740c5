/**
 * Updating a public profile: the display name (on the account), the bio and the avatar (in
 * `profiles`), then telling the user's contacts over /ws (`profile.changed`, ephemeral).
 */
import type { AccountRepository } from '../accounts/account-repository.js';
import type { Collection, DocumentStore } from '../platform/store/document-store.js';
import type { MessagingEvents } from '../events/messaging-events.js';
import type { ContactsAudience } from '../presence/contacts-audience.js';
import { PROFILES } from './profile-record.js';
import type { ProfileRecord } from './profile-record.js';

/** A partial update, already checked: absent fields stay as they are, '' clears. */
export interface ProfileChanges {
  readonly displayName?: string;
  readonly bio?: string;
  /** The avatar's media id, checked with media (ProfileAvatars). */
  readonly avatarMediaId?: string;
}

export class Profiles {
  readonly records: Collection<ProfileRecord>;

  constructor(
    store: DocumentStore,
    private readonly accounts: AccountRepository,
    private readonly audience: ContactsAudience,
    private readonly events: MessagingEvents,
  ) {
    this.records = store.collection<ProfileRecord>(PROFILES);
  }

  find(address: string): Promise<ProfileRecord | null> {
    return this.records.findOne({ _id: address });
  }

  async update(address: string, changes: ProfileChanges): Promise<void> {
    if (changes.displayName !== undefined)
      await this.accounts.setDisplayName(address, changes.displayName);
    const fields: Partial<ProfileRecord> = {};
    if (changes.bio !== undefined) fields.bio = changes.bio;
    if (changes.avatarMediaId !== undefined) fields.avatarMediaId = changes.avatarMediaId;
    await this.records.updateOne(
      { _id: address },
      // A new record starts empty in the fields this update leaves out ($setOnInsert may not name $set's).
      {
        $set: { ...fields, updatedAt: new Date() },
        $setOnInsert: Object.fromEntries(Object.entries(EMPTY).filter(([key]) => !(key in fields))),
      },
      { upsert: true },
    );
  }

  /** Tells the user's contacts what changed (after it is durable); a failed publish is logged by `events`. */
  async announce(address: string, profile: Record<string, unknown>): Promise<void> {
    await this.events.ephemeral('profile.changed', await this.audience.of(address), profile);
  }
}

const EMPTY = { bio: '', avatarMediaId: '' };
