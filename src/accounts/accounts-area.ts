/**
 * The accounts area: who exists. The account records (username, display name, permissions,
 * second-factor flag, suspension), the usernames held after a deletion and the wallets retired by
 * a move or deletion. Every area that asks whether an address is a user reads them here; how a user
 * proves who they are (wallet, phone, second factor) lives in the identity, phone and mfa areas
 * above it. Records of an account are moved and removed by identity's account-data owner, which
 * also closes the wallet first (identity-account-data.ts).
 */
import type { DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import { accountIndexes } from './account.js';
import { AccountRepository } from './account-repository.js';
import { HeldUsernames, heldUsernameIndexes } from './held-usernames.js';
import { RetiredWallets, retiredWalletIndexes } from './retired-wallets.js';
import { Suspensions } from './suspensions.js';
import { Usernames } from './usernames.js';

export interface AccountsDependencies {
  readonly store: DocumentStore;
}

/** Every index of the accounts area (created at start, and by the ensure-indexes command before a rollout). */
export const accountsIndexes: IndexSpec[] = [
  ...accountIndexes,
  ...heldUsernameIndexes,
  ...retiredWalletIndexes,
];

export async function createAccountsArea(deps: AccountsDependencies) {
  await deps.store.ensureIndexes(accountsIndexes);
  const accounts = new AccountRepository(deps.store);
  const heldUsernames = new HeldUsernames(deps.store);
  return {
    accounts,
    heldUsernames,
    usernames: new Usernames(accounts, heldUsernames),
    retiredWallets: new RetiredWallets(deps.store),
    /** Operator suspensions, refused at every sign-in and send. */
    suspensions: new Suspensions(accounts),
  };
}

export type AccountsArea = Awaited<ReturnType<typeof createAccountsArea>>;
