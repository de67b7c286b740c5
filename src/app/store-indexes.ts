import { accountLifecycleIndexes } from '../account-lifecycle/account-lifecycle-area.js';
import { accountsIndexes } from '../accounts/accounts-area.js';
import { channelsIndexes } from '../channels/channels-area.js';
import { contactsIndexes } from '../contacts/contacts-area.js';
import { groupsIndexes } from '../groups/groups-area.js';
import { identityIndexes } from '../identity/identity-area.js';
import { keysIndexes } from '../keys/keys-area.js';
import { locationIndexes } from '../location/location-area.js';
import { mediaIndexes } from '../media/media-area.js';
import { messagingIndexes } from '../messaging/messaging-area.js';
import { moderationIndexes } from '../moderation/moderation-area.js';
import type { DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import { phoneIndexes } from '../phone/phone-area.js';
import { upgradeLegacyPolls } from '../polls/legacy-poll-upgrade.js';
import { pollsIndexes } from '../polls/polls-area.js';
import { profileIndexes } from '../profile/profile-area.js';
import { pushIndexes } from '../push/push-area.js';
import { recoveryIndexes } from '../recovery/recovery-area.js';
import { relayIndexes } from '../relay/relay-area.js';
import { storiesIndexes } from '../stories/stories-area.js';

/** Every index the service declares: what `ensure-indexes` builds before a rollout. */
export const storeIndexes: IndexSpec[] = [
  ...moderationIndexes,
  ...accountsIndexes,
  ...identityIndexes,
  ...phoneIndexes,
  ...contactsIndexes,
  ...messagingIndexes,
  ...groupsIndexes,
  ...channelsIndexes,
  ...pollsIndexes,
  ...keysIndexes,
  ...relayIndexes,
  ...profileIndexes,
  ...locationIndexes,
  ...accountLifecycleIndexes,
  ...recoveryIndexes,
  ...pushIndexes,
  ...mediaIndexes,
  ...storiesIndexes,
];

/**
 * Rewrites records stored by earlier versions into today's shape, after the indexes: what
 * `ensure-indexes` runs before a rollout (each area also runs its own at start). Idempotent.
 * Answers how many records each upgrade rewrote.
 */
export async function upgradeStoredRecords(store: DocumentStore): Promise<Record<string, number>> {
  return { legacyPolls: await upgradeLegacyPolls(store) };
}
