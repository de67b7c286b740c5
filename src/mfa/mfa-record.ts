import type { StoredBackupCode } from './backup-codes.js';

/** An account's MFA state, keyed by its address; absent until the first TOTP setup. */
export interface MfaRecord {
  _id: string;
  /** The confirmed TOTP secret, sealed (SecretBox); null while MFA is off. */
  secret: string | null;
  enabledAt: Date | null;
  /** The RFC 6238 time step of the last accepted code; -1 when none. */
  lastTimeStep: number;
  /** A setup waiting for EnableTotp: the new secret, sealed, and when the offer ends. */
  pendingSecret: string | null;
  pendingExpiresAt: Date | null;
  backupCodes: StoredBackupCode[];
  backupCodesGeneratedAt: Date | null;
}

export const MFA_RECORDS = 'mfa_records';
