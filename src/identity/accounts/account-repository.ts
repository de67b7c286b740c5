import { conflict } from '../../platform/errors/api-error.js';
import type { Collection, DocumentStore } from '../../platform/store/document-store.js';
import { DuplicateKeyError } from '../../platform/store/document-store.js';
import { ACCOUNTS } from './account.js';
import type { Account } from './account.js';

export class AccountRepository {
  private readonly accounts: Collection<Account>;

  constructor(store: DocumentStore) {
    this.accounts = store.collection<Account>(ACCOUNTS);
  }

  find(address: string): Promise<Account | null> {
    return this.accounts.findOne({ _id: address });
  }

  findByUsername(username: string): Promise<Account | null> {
    return this.accounts.findOne({ username });
  }

  /** Creates the account; `409 CONFLICT` when the username (or, in a race, the wallet) is taken. */
  async create(account: Account): Promise<Account> {
    try {
      await this.accounts.insertOne(account);
      return account;
    } catch (error) {
      if (error instanceof DuplicateKeyError) {
        throw conflict(error.index === '_id_' ? 'This wallet already has an account' : 'This username is taken');
      }
      throw error;
    }
  }
}
