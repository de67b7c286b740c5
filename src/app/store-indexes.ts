import { contactsIndexes } from '../contacts/contacts-area.js';
import { identityIndexes } from '../identity/identity-area.js';
import { keysIndexes } from '../keys/keys-area.js';
import { mediaIndexes } from '../media/media-area.js';
import { messagingIndexes } from '../messaging/messaging-area.js';
import type { IndexSpec } from '../platform/store/document-store.js';
import { relayIndexes } from '../relay/relay-area.js';

/** Every index the service declares: what `ensure-indexes` builds before a rollout. */
export const storeIndexes: IndexSpec[] = [...identityIndexes, ...contactsIndexes, ...messagingIndexes, ...keysIndexes, ...relayIndexes, ...mediaIndexes];
