import type { Account } from '../../accounts/account.js';

/** The AuthUser of every sign-in response (Initialize, RegisterPhone, PhoneLogin, VerifyMfa). */
export const authUserOf = (account: Account) => ({
  address: account._id,
  username: account.username,
  displayName: account.displayName,
  mfaEnabled: account.mfaEnabled,
});
