import type { IndexSpec } from '../platform/store/document-store.js';

/** An account, keyed by its lowercase wallet address (the identity of the spec). */
export interface Account {
  /** Lowercase `0x` + 40 hex wallet address. */
  _id: string;
  /** Lowercase; unique. */
  username: string;
  displayName: string;
  createdAt: Date;
  /** Permissions granted by an operator, e.g. `admin:view_audit_logs`. */
  permissions: string[];
  mfaEnabled: boolean;
  /** How the account was created: `wallet` (EIP-191 sign-in) or `phone`. */
  origin: 'wallet' | 'phone';
  /**
   * Set when the account's deletion began: from then on the record is invisible to every lookup
   * (contact discovery never returns it), and the deletion's last step removes it. The username
   * stays held in held-usernames.ts, the wallet refused in retired-wallets.ts.
   */
  deletedAt?: Date;
  /**
   * Set by an operator's suspension (suspensions.ts): until then sign-ins and sends are refused.
   * Kept on the record itself so that it is as durable as the account and read with it.
   */
  suspendedUntil?: Date;
}

export const ACCOUNTS = 'accounts';

export const accountIndexes: IndexSpec[] = [
  { collection: ACCOUNTS, name: 'username_unique', key: { username: 1 }, unique: true },
];
