/**
 * The push area's account data owner, called directly (as recovery and deletion walk the
 * owners): a move re-keys the old address's subscriptions to the new one, merged with the
 * new one's and idempotent when run again; a deletion removes them all and nothing else.
 */
import { createECDH, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedDocumentStore } from '../../src/platform/store/embedded/embedded-store.js';
import { pushAccountData } from '../../src/push/push-account-data.js';
import { pushIndexes } from '../../src/push/push-area.js';
import { PushSubscriptions } from '../../src/push/subscriptions/push-subscriptions.js';
import { checkSubscription } from '../../src/push/subscriptions/subscription-checks.js';
import { silentLogger } from '../support/silent-logger.js';

let dataDir: string;
let store: EmbeddedDocumentStore;
let subscriptions: PushSubscriptions;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'push-account-'));
  store = await EmbeddedDocumentStore.open({ dataDir, logger: silentLogger });
  await store.ensureIndexes(pushIndexes);
  subscriptions = new PushSubscriptions(store);
});
afterEach(async () => {
  await store.close();
  await rm(dataDir, { recursive: true, force: true });
});

const OLD = `0x${'a'.repeat(40)}`;
const NEW = `0x${'b'.repeat(40)}`;
const OTHER = `0x${'c'.repeat(40)}`;

async function subscribe(address: string, name: string): Promise<string> {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const checked = checkSubscription(`https://push.example/${name}`, {
    p256dh: ecdh.getPublicKey().toString('base64url'),
    auth: randomBytes(16).toString('base64url'),
  });
  return (await subscriptions.subscribe({ address, sessionId: `session-of-${name}` }, checked)).id;
}
const endpointsOf = async (address: string) =>
  (await subscriptions.forAccount(address)).map((s) => s.endpoint).sort();

it("moves an account's subscriptions to its new address, merged with those already there, and again harmlessly", async () => {
  await subscribe(OLD, 'old-1');
  await subscribe(OLD, 'old-2');
  await subscribe(NEW, 'new-1');
  await subscribe(OTHER, 'other');
  const owner = pushAccountData(subscriptions);
  await owner.moveAccount(OLD, NEW);
  await owner.moveAccount(OLD, NEW);
  expect(await endpointsOf(OLD)).toEqual([]);
  expect(await endpointsOf(NEW)).toEqual([
    'https://push.example/new-1',
    'https://push.example/old-1',
    'https://push.example/old-2',
  ]);
  expect(await endpointsOf(OTHER)).toEqual(['https://push.example/other']);
  // Still bound to their sessions: ending the old address's session removes its subscription.
  await subscriptions.removeOfSessions(['session-of-old-1']);
  expect(await endpointsOf(NEW)).toEqual([
    'https://push.example/new-1',
    'https://push.example/old-2',
  ]);
});

it('deletes every subscription of the account and only those', async () => {
  await subscribe(OLD, 'old-1');
  await subscribe(OTHER, 'other');
  const owner = pushAccountData(subscriptions);
  await owner.deleteAccount(OLD);
  await owner.deleteAccount(OLD);
  expect(await endpointsOf(OLD)).toEqual([]);
  expect(await endpointsOf(OTHER)).toEqual(['https://push.example/other']);
});

it('keeps at most 10 subscriptions per account, dropping the least recently updated', async () => {
  for (let n = 0; n < 12; n += 1) {
    await subscribe(OLD, `device-${String(n).padStart(2, '0')}`);
    await new Promise((resolve) => setTimeout(resolve, 3)); // distinct update times
  }
  const kept = await endpointsOf(OLD);
  expect(kept).toHaveLength(10);
  expect(kept).not.toContain('https://push.example/device-00');
  expect(kept).not.toContain('https://push.example/device-01');
});
