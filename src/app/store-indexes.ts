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
import type { IndexSpec } from '../platform/store/document-store.js';
import { phoneIndexes } from '../phone/phone-area.js';
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
