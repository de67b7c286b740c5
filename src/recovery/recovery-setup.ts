/**
 * SetupRecovery's effect: the new configuration replaces the old one with fresh backup codes
 * (earlier codes stop working), any open request of the account is cancelled (the owner's
 * cancel: a signed-in owner reconfigures), and the guardians are told they were chosen.
 */
import { randomBytes } from 'node:crypto';
import type { RecoveryConfigs } from './recovery-config.js';
import { newRecoveryCodes } from './recovery-codes.js';
import type { KeyedHash } from './recovery-codes.js';
import type { RecoveryNotices } from './recovery-notices.js';
import type { RecoveryRequests } from './recovery-request.js';

export interface RecoveryChoice {
  readonly guardians: string[];
  readonly minGuardiansRequired: number;
  readonly timeLockHours: number;
  readonly recoveryEmailHash: string;
}

export interface ConfiguredRecovery {
  readonly codes: string[];
  readonly configuredAt: Date;
  /** The open request this cancelled; empty when there was none. */
  readonly cancelledRequestId: string;
}

export class RecoverySetup {
  constructor(
    private readonly configs: RecoveryConfigs,
    private readonly requests: RecoveryRequests,
    private readonly notices: RecoveryNotices,
    private readonly mac: KeyedHash,
  ) {}

  async configure(owner: string, choice: RecoveryChoice, now: Date): Promise<ConfiguredRecovery> {
    const configurationId = randomBytes(16).toString('hex');
    const { codes, stored } = newRecoveryCodes(this.mac, configurationId);
    await this.configs.save({
      _id: owner,
      configurationId,
      ...choice,
      codes: stored,
      codeFailures: 0,
      codesLockedUntil: null,
      configuredAt: now,
    });
    const open = await this.requests.findOpen(owner, now);
    let cancelledRequestId = '';
    if (open && (await this.requests.close(open, 'cancelled', now))) {
      cancelledRequestId = open._id;
      await this.notices.requestChanged(
        { ...open, status: 'cancelled', open: undefined, closedAt: now },
        'cancelled',
        now,
      );
    }
    await this.notices.guardiansChosen(owner, choice.guardians);
    return { codes, configuredAt: now, cancelledRequestId };
  }
}
