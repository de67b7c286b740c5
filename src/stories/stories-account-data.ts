/**
 * Stories' records in an account move or deletion. A move gives the stories of the old address
 * to the new one (with the views of them), re-keys the views it made (where the new address had
 * viewed the same story, that view is kept) and renames it in `selected` audiences. A deletion
 * removes its stories with their views and media, and its views of other users' stories.
 */
import type { AccountDataOwner } from '../platform/account-data/account-data-owner.js';
import type { Stories } from './stories.js';

export function storiesAccountData(stories: Stories): AccountDataOwner {
  return {
    name: 'stories',
    moveAccount: (from: string, to: string) => stories.moveAll(from, to),
    deleteAccount: (address: string) => stories.removeAll(address),
  };
}
