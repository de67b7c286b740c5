/**
 * The push area's records keyed by a wallet address, for social recovery and account deletion.
 * A move re-keys the account's subscriptions to the new address, merged with any the new
 * address already has (each endpoint is one record; beyond the cap of 10 the least recently
 * updated go); they stay bound to their sessions, so ending the old address's sessions removes
 * them. A deletion removes every subscription of the account. Both are single conditional
 * writes on the old address, so a repeated or resumed run does the same.
 */
import type { AccountDataOwner } from '../platform/account-data/account-data-owner.js';
import type { PushSubscriptions } from './subscriptions/push-subscriptions.js';

export function pushAccountData(subscriptions: PushSubscriptions): AccountDataOwner {
  return {
    name: 'push',
    moveAccount: (from, to) => subscriptions.moveAccount(from, to),
    deleteAccount: (address) => subscriptions.removeAccount(address),
  };
}
