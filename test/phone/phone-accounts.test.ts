/** Phone bindings on the embedded store: unique numbers, completion, and the V1 → V2 swap. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PhoneAccounts, phoneAccountIndexes } from '../../src/phone/phone-accounts.js';
import { createLogger } from '../../src/platform/logging/logger.js';
import type { DocumentStore } from '../../src/platform/store/document-store.js';
import { openStore } from '../../src/platform/store/open-store.js';

let dataDir: string;
let store: DocumentStore;
let phones: PhoneAccounts;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'phone-accounts-'));
  store = await openStore({ dataDir, logger: createLogger('silent') });
  await store.ensureIndexes(phoneAccountIndexes);
  phones = new PhoneAccounts(store);
});
afterAll(async () => {
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const binding = (address: string, phoneHash: string, hashVersion: 1 | 2 = 2) => ({
  _id: address,
  phoneHash,
  hashVersion,
  identityPublicKey: 'k',
  createdAt: new Date(),
  completedAt: null,
});

it('binds a number to one account only', async () => {
  await phones.bind(binding('0xa1', 'a'.repeat(64)));
  await expect(phones.bind(binding('0xa2', 'a'.repeat(64)))).rejects.toMatchObject({
    code: expect.any(Number),
  });
  expect((await phones.findByHash('a'.repeat(64)))?._id).toBe('0xa1');
});

it('marks a registration complete once', async () => {
  await phones.bind(binding('0xb1', 'b'.repeat(64)));
  await phones.markRegistrationComplete('0xb1');
  const completedAt = (await phones.findByAddress('0xb1'))?.completedAt;
  expect(completedAt).toBeInstanceOf(Date);
  await phones.markRegistrationComplete('0xb1');
  expect((await phones.findByAddress('0xb1'))?.completedAt).toEqual(completedAt);
});

it('swaps a V1 hash for its V2 hash, refusing one that belongs to another account', async () => {
  await phones.bind(binding('0xc1', 'c'.repeat(64), 1));
  await expect(phones.migrate('0xc1', 'c'.repeat(64), 'a'.repeat(64))).rejects.toMatchObject({
    message: expect.stringContaining('another account'),
  });
  expect(await phones.migrate('0xc1', 'c'.repeat(64), 'd'.repeat(64))).toBe(true);
  expect(await phones.migrate('0xc1', 'c'.repeat(64), 'd'.repeat(64))).toBe(false);
  expect(await phones.findByAddress('0xc1')).toMatchObject({
    phoneHash: 'd'.repeat(64),
    hashVersion: 2,
  });
});
