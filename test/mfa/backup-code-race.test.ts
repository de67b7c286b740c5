/**
 * A backup code is spent once, however many requests race for it: on every store engine
 * (MongoDB when MONGODB_URL is set). The spends run through Mfa.verify against a real store;
 * they start together, so each reads the record before any has written, and only the
 * conditional update decides. The old guard `{'backupCodes.<i>.usedAt': null}` matches on
 * MongoDB even after the code is spent (no element has a field "<i>", and missing matches
 * null), so every racer was accepted.
 */
import { randomBytes } from 'node:crypto';
import { AccountRepository } from '../../src/accounts/account-repository.js';
import { newBackupCodes, normalizeBackupCode } from '../../src/mfa/backup-codes.js';
import { Mfa } from '../../src/mfa/mfa.js';
import { MFA_RECORDS, type MfaRecord } from '../../src/mfa/mfa-record.js';
import { SecretBox } from '../../src/mfa/secret-box.js';
import { TrustedDevices } from '../../src/identity/signin/trusted-devices.js';
import { Lockouts } from '../../src/identity/lockout/lockouts.js';
import { createLogger } from '../../src/platform/logging/logger.js';
import { MemorySharedState } from '../../src/platform/shared-state/memory-shared-state.js';
import { forEachStore } from '../support/stores-under-test.js';
import type { StoreUnderTest } from '../support/stores-under-test.js';

const RACERS = 8;

forEachStore('backup_code_race', (engine, open) => {
  describe(`backup codes on ${engine}`, () => {
    let subject: StoreUnderTest;
    let mfa: Mfa;
    let box: SecretBox;
    beforeAll(async () => {
      subject = await open();
      box = new SecretBox(randomBytes(32));
      const lockouts = new Lockouts(
        new MemorySharedState({ keyPrefix: 'race:', logger: createLogger('silent') }),
        false,
      );
      mfa = new Mfa({
        store: subject.store,
        box,
        accounts: new AccountRepository(subject.store),
        lockouts,
        trustedDevices: new TrustedDevices(subject.store, 0),
      });
    });
    afterAll(() => subject.dispose());

    /** An account with MFA on and a fresh set of backup codes; returns the codes as shown to the user. */
    async function accountWithCodes(address: string): Promise<string[]> {
      const { codes, stored } = newBackupCodes(box, address);
      const now = new Date();
      await subject.store.collection<MfaRecord>(MFA_RECORDS).insertOne({
        _id: address,
        secret: box.seal('JBSWY3DPEHPK3PXP', address),
        enabledAt: now,
        lastTimeStep: -1,
        pendingSecret: null,
        pendingExpiresAt: null,
        backupCodes: stored,
        backupCodesGeneratedAt: now,
      });
      return codes;
    }

    test.each([0, 3, 9])(
      `of ${RACERS} concurrent spends of backup code #%i, exactly one is accepted`,
      async (index) => {
        const address = `0x${randomBytes(20).toString('hex')}`;
        const codes = await accountWithCodes(address);
        const backupCode = normalizeBackupCode(codes[index] as string);
        const outcomes = await Promise.allSettled(
          Array.from({ length: RACERS }, () => mfa.verify(address, { backupCode })),
        );
        const accepted = outcomes.filter((outcome) => outcome.status === 'fulfilled');
        expect(accepted).toHaveLength(1);
        expect(accepted[0]).toMatchObject({
          value: { method: 'backup_code', backupCodesRemaining: 9 },
        });
        for (const outcome of outcomes.filter((o) => o.status === 'rejected')) {
          expect(outcome.reason).toMatchObject({
            message: expect.stringContaining('The code is not valid'),
          });
        }
        const record = await mfa.find(address);
        expect(record?.backupCodes.map((code) => code.usedAt !== null)).toEqual(
          codes.map((_, i) => i === index),
        );
        // Spent is spent, also for a later request that reads the record afresh.
        await expect(mfa.verify(address, { backupCode })).rejects.toMatchObject({
          message: expect.stringContaining('The code is not valid'),
        });
        await expect(
          mfa.verify(address, {
            backupCode: normalizeBackupCode(codes[(index + 1) % 10] as string),
          }),
        ).resolves.toMatchObject({ backupCodesRemaining: 8 });
      },
    );
  });
});
