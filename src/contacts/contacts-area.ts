/**
 * The contacts area of an api process: the block list (kept in the store and mirrored into
 * shared state for the ws pods), safety-number verifications and contact discovery (identity's
 * phone bindings, with its enumeration quota in shared state and, durably, in the store). The block mirror is the one
 * the app builds for every role; the accounts are identity's. The mirror's copy from the store
 * (`mirror`) is run by the app's mirror keeper whenever shared state lost it. `blockListener`
 * hears of each block once it is durable (the app announces it to the areas that react).
 */
import type { AccountRepository } from '../accounts/account-repository.js';
import type { PhoneAccounts } from '../phone/phone-accounts.js';
import type { DiscoverySettings } from '../platform/config/settings.js';
import type { SharedState } from '../platform/shared-state/shared-state.js';
import type { DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import { BlockList, blockIndexes, blocksMirror } from './block-list.js';
import type { BlockListener } from './block-list.js';
import type { BlockMirror } from './block-mirror.js';
import { ContactVerifications } from './contact-verifications.js';
import { ContactsAccountData } from './contacts-account-data.js';
import { createContactsService } from './contacts-service.js';
import { ContactDiscovery } from './discovery/contact-discovery.js';
import { DurableBudget, durableBudgetIndexes } from './discovery/durable-budget.js';
import { EnumerationQuota } from './discovery/enumeration-quota.js';

export interface ContactsDependencies {
  readonly store: DocumentStore;
  readonly blockMirror: BlockMirror;
  readonly blockListener: BlockListener;
  readonly accounts: AccountRepository;
  readonly phoneAccounts: PhoneAccounts;
  readonly sharedState: SharedState;
  readonly settings: DiscoverySettings;
}

/** Every index of the contacts area (created at start, and by the ensure-indexes command before a rollout). */
export const contactsIndexes: IndexSpec[] = [...blockIndexes, ...durableBudgetIndexes];

export async function createContactsArea({
  store,
  blockMirror,
  blockListener,
  accounts,
  phoneAccounts,
  sharedState,
  settings,
}: ContactsDependencies) {
  await store.ensureIndexes(contactsIndexes);
  const blocks = new BlockList(store, blockMirror, blockListener);
  const verifications = new ContactVerifications(store);
  const quota = new EnumerationQuota(
    sharedState,
    settings,
    new DurableBudget(store, settings.hashBudget, settings.budgetWindowMs),
  );
  const discovery = new ContactDiscovery(phoneAccounts, accounts, blocks, quota);
  return {
    blocks,
    verifications,
    mirror: blocksMirror(blocks),
    accountData: new ContactsAccountData(blocks, verifications),
    service: createContactsService({ blocks, verifications, accounts, discovery }),
  };
}

export type ContactsArea = Awaited<ReturnType<typeof createContactsArea>>;
