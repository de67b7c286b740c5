/**
 * What decides a username race on any number of pods: the accounts' unique index, in the store.
 * Here the Usernames rules (held names, re-checks) are bypassed: concurrent renames and
 * account creations claiming one name go straight to AccountRepository, so only the index can
 * keep the name unique. Of 24 concurrent claims exactly one wins and the others get 409; the
 * index is there again after the store reopens (the embedded engine rebuilds it from its
 * files). On the embedded engine always, on MongoDB when MONGODB_URL is set.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Code } from '@connectrpc/connect';
import { AccountRepository } from '../../src/accounts/account-repository.js';
import type { Account } from '../../src/accounts/account.js';
import { accountsIndexes } from '../../src/accounts/accounts-area.js';
import { EmbeddedDocumentStore } from '../../src/platform/store/embedded/embedded-store.js';
import { silentLogger } from '../support/silent-logger.js';
import { forEachStore } from '../support/stores-under-test.js';
import type { StoreUnderTest } from '../support/stores-under-test.js';

const CLAIMS = 24;
const address = (index: number) => `0x${index.toString(16).padStart(40, '0')}`;
const account = (index: number, username: string): Account => ({
  _id: address(index),
  username,
  displayName: '',
  createdAt: new Date(),
  permissions: [],
  mfaEnabled: false,
  origin: 'wallet',
});

forEachStore('username unique index', (engine, open) => {
  describe(engine, () => {
    let underTest: StoreUnderTest;
    let accounts: AccountRepository;
    beforeEach(async () => {
      underTest = await open();
      await underTest.store.ensureIndexes(accountsIndexes);
      accounts = new AccountRepository(underTest.store);
    });
    afterEach(() => underTest.dispose());

    /** Settles every claim: the winners' indexes and the losers' refusals. */
    async function race(claims: (() => Promise<unknown>)[]) {
      const results = await Promise.allSettled(claims.map((claim) => claim()));
      const won = results.flatMap((result, index) =>
        result.status === 'fulfilled' && result.value !== false ? [index] : [],
      );
      const refused = results.flatMap((result) =>
        result.status === 'rejected' ? [result.reason] : [],
      );
      return { won, refused };
    }

    it(`of ${CLAIMS} concurrent renames to one free name exactly one wins; the others get 409 and keep their names`, async () => {
      for (let index = 0; index < CLAIMS; index++)
        await accounts.create(account(index, `before_${index}`));
      const { won, refused } = await race(
        Array.from(
          { length: CLAIMS },
          (_, index) => () => accounts.rename(address(index), `before_${index}`, 'contested'),
        ),
      );
      expect(won).toHaveLength(1);
      expect(refused).toHaveLength(CLAIMS - 1);
      for (const error of refused)
        expect(error).toMatchObject({
          code: Code.AlreadyExists,
          message: expect.stringContaining('This username is taken'),
        });
      expect((await accounts.findByUsername('contested'))?._id).toBe(address(won[0]!));
      for (let index = 0; index < CLAIMS; index++)
        if (index !== won[0])
          expect((await accounts.find(address(index)))?.username).toBe(`before_${index}`);
    });

    it(`of ${CLAIMS} concurrent registrations and renames claiming one name exactly one wins`, async () => {
      const renamers = CLAIMS / 2;
      for (let index = 0; index < renamers; index++)
        await accounts.create(account(index, `before_${index}`));
      const claims = [
        ...Array.from(
          { length: renamers },
          (_, index) => () => accounts.rename(address(index), `before_${index}`, 'contested'),
        ),
        ...Array.from(
          { length: CLAIMS - renamers },
          (_, index) => () => accounts.create(account(renamers + index, 'contested')),
        ),
      ];
      const { won, refused } = await race(claims);
      expect(won).toHaveLength(1);
      expect(refused).toHaveLength(CLAIMS - 1);
      expect(
        await underTest.store.collection('accounts').countDocuments({ username: 'contested' }),
      ).toBe(1);
    });
  });
});

it('the embedded engine keeps the unique index across a reopen', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'username-index-'));
  try {
    const first = await EmbeddedDocumentStore.open({ dataDir, logger: silentLogger });
    await first.ensureIndexes(accountsIndexes);
    await new AccountRepository(first).create(account(1, 'kept'));
    await first.close();
    const reopened = await EmbeddedDocumentStore.open({ dataDir, logger: silentLogger });
    try {
      await expect(
        new AccountRepository(reopened).create(account(2, 'kept')),
      ).rejects.toMatchObject({ code: Code.AlreadyExists });
    } finally {
      await reopened.close();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
