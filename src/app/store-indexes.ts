import { identityIndexes } from '../identity/identity.js';
import { messagingIndexes } from '../messaging/messaging.js';
import type { IndexSpec } from '../platform/store/document-store.js';

/** Every index the service declares: what `ensure-indexes` builds before a rollout. */
export const storeIndexes: IndexSpec[] = [...identityIndexes, ...messagingIndexes];
