import { invalidArgument, notFound } from '../platform/errors/api-error.js';
import { isWalletAddress } from './wallet-address.js';
import type { AccountRepository } from './account-repository.js';

/** A registered user named by a wallet address in any case, lowercased: 400 if malformed, 404 if unknown. */
export async function requireExistingUser(
  accounts: AccountRepository,
  address: string,
  field: string,
): Promise<string> {
  if (!isWalletAddress(address))
    throw invalidArgument(`${field} must be a wallet address (0x + 40 hex digits)`);
  const lower = address.toLowerCase();
  if (!(await accounts.exists(lower))) throw notFound('No account with this address');
  return lower;
}
