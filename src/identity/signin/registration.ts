/**
 * Creating the account of a registration template (Initialize, RegisterPhone): the username
 * rules, reserved names, and the proof of work of SERVICE_POW_DIFFICULTY_BITS.
 */
import { Code } from '@connectrpc/connect';
import { apiError, conflict, invalidArgument } from '../../platform/errors/api-error.js';
import type { Account } from '../accounts/account.js';
import type { AccountRepository } from '../accounts/account-repository.js';
import type { RetiredWallets } from '../accounts/retired-wallets.js';
import { checkUsername, isReservedUsername } from '../accounts/username.js';
import { hasProofOfWork, isWellFormedPowNonce } from '../wallet/proof-of-work.js';
import type { ParsedSignInMessage } from '../wallet/sign-in-templates.js';

export class Registration {
  constructor(
    private readonly accounts: AccountRepository,
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
    if (parsed.kind === 'sign-in') throw invalidArgument('This wallet has no account yet: sign a registration message with a username');
    const chosen = parsed.username ?? request.username;
    const username = checkUsername(chosen);
    if (!username.valid) throw invalidArgument(`Invalid username: ${username.reason}`);
    if (isReservedUsername(username.username)) throw conflict('This username is reserved');
    const bits = this.powDifficultyBits;
    if (bits > 0 && request.powNonce !== undefined) {
      if (request.powNonce !== '' && !isWellFormedPowNonce(request.powNonce)) throw invalidArgument('pow_nonce is malformed');
      if (!hasProofOfWork(request.message, request.powNonce, bits)) {
        throw apiError(Code.InvalidArgument, 'POW_REQUIRED', `Creating an account requires a proof of work of ${bits} bits`);
      }
    }
    return this.accounts.create({
      _id: address,
      username: username.username,
      displayName: parsed.displayName ?? '',
      createdAt: new Date(),
      permissions: [],
      mfaEnabled: false,
      origin,
    });
  }
}
