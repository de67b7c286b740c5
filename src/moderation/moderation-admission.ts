/**
 * The moderation area's side of every send (messaging's `SendAdmission`): a suspended sender is
 * refused (`403 ACCOUNT_SUSPENDED`), a new account writing to one stranger too many is
 * challenged (`428 CHALLENGE_REQUIRED`, when the abuse controls are on), and a franked
 * message's commitment is bound with the current franking key. One read of the sender's
 * account answers both checks.
 */
import type { AccountRepository } from '../accounts/account-repository.js';
import { accountSuspended, suspensionOf } from '../accounts/suspensions.js';
import type {
  DirectPeer,
  FrankingBinding,
  FrankingTag,
  SendAdmission,
} from '../messaging/messages/send-admission.js';
import type { FrankingKeys } from './franking/franking-keys.js';
import type { StrangerLimit } from './stranger-limit.js';

export class ModerationAdmission implements SendAdmission {
  constructor(
    private readonly accounts: AccountRepository,
    private readonly franking: FrankingKeys,
    /** Undefined with RATE_LIMITS_ENABLED=false (the other abuse controls are off too). */
    private readonly strangers: StrangerLimit | undefined,
  ) {}

  async admit(sender: string, direct?: DirectPeer): Promise<void> {
    const account = await this.accounts.find(sender);
    const suspendedUntil = suspensionOf(account);
    if (suspendedUntil) throw accountSuspended(suspendedUntil);
    if (account && direct && this.strangers)
      await this.strangers.admit(sender, account.createdAt, direct);
  }

  frank(binding: FrankingBinding): FrankingTag {
    return this.franking.tag(binding);
  }
}
