/**
 * Creating the account of a registration template (Initialize, RegisterPhone): the username
 * rules, reserved and held names, and the proof of work of SERVICE_POW_DIFFICULTY_BITS.
 */
import { Code } from '@connectrpc/connect';
import { apiError, invalidArgument } from '../../platform/errors/api-error.js';
import type { Account } from '../../accounts/account.js';
import type { AccountRepository } from '../../accounts/account-repository.js';
import type { RetiredWallets } from '../../accounts/retired-wallets.js';
import type { Usernames } from '../../accounts/usernames.js';
import { hasProofOfWork, isWellFormedPowNonce } from '../wallet/proof-of-work.js';
import type { ParsedSignInMessage } from '../wallet/sign-in-templates.js';

export class Registration {
  constructor(
    private readonly accounts: AccountRepository,
    private readonly usernames: Usernames,
    /** A moved account's old wallet never registers again; a deleted account's not while its username is held. */
    private readonly retiredWallets: RetiredWallets,
    /** 0: no proof of work. */
    private readonly powDifficultyBits: number,
  ) {}

  /** `powNonce` undefined: exempt from proof of work (a phone registration, whose cost is the verified number). */
  async register(
    request: { username: string; message: string; powNonce?: string },
    parsed: ParsedSignInMessage,
    address: string,
    origin: Account['origin'],
  ): Promise<Account> {
    await this.retiredWallets.refuseRetired(address);
    if (parsed.kind === 'sign-in')
      throw invalidArgument(
        'This wallet has no account yet: sign a registration message with a username',
      );
    const username = await this.usernames.claimable(parsed.username ?? request.username, address);
    const bits = this.powDifficultyBits;
    if (bits > 0 && request.powNonce !== undefined) {
      if (request.powNonce !== '' && !isWellFormedPowNonce(request.powNonce))
        throw invalidArgument('pow_nonce is malformed');
      if (!hasProofOfWork(request.message, request.powNonce, bits)) {
        throw apiError(
          Code.InvalidArgument,
          'POW_REQUIRED',
          `Creating an account requires a proof of work of ${bits} bits`,
        );
      }
    }
    const account = await this.accounts.create({
      _id: address,
      username,
      displayName: parsed.displayName ?? '',
      createdAt: new Date(),
      permissions: [],
      mfaEnabled: false,
      origin,
    });
    await this.usernames.confirmRegistered(account);
    return account;
  }
}
