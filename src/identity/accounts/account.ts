import type { IndexSpec } from '../../platform/store/document-store.js';

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
   * Set when the account was deleted: the record stays only to hold the username (30 days,
   * `purgeAt`, TTL) and is invisible to every lookup (contact discovery never returns it); the
   * wallet is refused at sign-in (retired-wallets.ts).
   */
  deletedAt?: Date;
  purgeAt?: Date;
}

export const ACCOUNTS = 'accounts';

export const accountIndexes: IndexSpec[] = [
  { collection: ACCOUNTS, name: 'username_unique', key: { username: 1 }, unique: true },
  { collection: ACCOUNTS, name: 'deleted_purge', key: { purgeAt: 1 }, expireAfterSeconds: 0 },
];

/** How long a deleted account's username stays held (profile.proto, DeleteAccount). */
export const USERNAME_HOLD_MS = 30 * 24 * 60 * 60 * 1000;
