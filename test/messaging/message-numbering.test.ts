/**
 * Sequence numbers when several api processes write one conversation: each "pod" here is its
 * own messaging core (its own turns and remembered numbers, as a process has) over one real
 * embedded store, so they meet only at the store's unique indexes, as pods meet on MongoDB.
 * Also: a number stays spent after its message is deleted by its timer.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ACCOUNTS } from '../../src/accounts/account.js';
import type { Account } from '../../src/accounts/account.js';
import type { SendRequest } from '../../src/messaging/messages/message-sender.js';
import { createLogger } from '../../src/platform/logging/logger.js';
import { MemorySharedState } from '../../src/platform/shared-state/memory-shared-state.js';
import { MemoryStore } from '../../src/platform/shared-state/memory-store.js';
import { EmbeddedDocumentStore } from '../../src/platform/store/embedded/embedded-store.js';
import { messageSending } from '../support/message-sending.js';
import type { MessageSending } from '../support/message-sending.js';
import { silentLogger } from '../support/silent-logger.js';

const logger = createLogger('silent');
let dataDir: string;
let store: EmbeddedDocumentStore;
const sharedMemory = new MemoryStore();

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'numbering-'));
  store = await EmbeddedDocumentStore.open({ dataDir, logger: silentLogger });
});
afterEach(async () => {
  await store.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** The sending parts of one api process (messaging-area.ts), over the shared store and shared state. */
function pod(): Promise<MessageSending> {
  return messageSending(
    store,
    new MemorySharedState({ keyPrefix: 'numbering:', logger, store: sharedMemory }),
  );
}

async function newUser(): Promise<string> {
  const address = `0x${randomBytes(20).toString('hex')}`;
  await store.collection<Account>(ACCOUNTS).insertOne({
    _id: address,
    username: address.slice(2, 18),
    displayName: '',
    createdAt: new Date(),
    permissions: [],
    mfaEnabled: false,
    origin: 'wallet',
  });
  return address;
}

const text = (
  recipientAddress: string,
  clientMessageId: string,
  body = clientMessageId,
): SendRequest => ({
  clientMessageId,
  recipientAddress,
  groupId: '',
  channelId: '',
  kind: 'text',
  ciphertext: Buffer.from(body),
  mediaId: '',
  durationMs: 0,
  viewOnce: false,
});

async function storedSequences(conversationId: string): Promise<number[]> {
  const messages = await store
    .collection<{ _id: string; sequence: number }>('messages')
    .find({ conversationId }, { sort: { sequence: 1 } });
  return messages.map((message) => message.sequence);
}

const oneToN = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

test('two processes sending into one conversation at once number it 1..N, each number once', async () => {
  const [a, b] = await Promise.all([pod(), pod()]);
  const [alice, bob] = await Promise.all([newUser(), newUser()]);
  const sends = Array.from({ length: 30 }, (_, i) => [
    a.sender.send(alice, text(bob, `a-${i}`)),
    b.sender.send(bob, text(alice, `b-${i}`)),
  ]).flat();
  const results = await Promise.all(sends);
  expect(results.map((result) => result.message.sequence).sort((x, y) => x - y)).toEqual(
    oneToN(60),
  );
  expect(await storedSequences(results[0]!.message.conversationId)).toEqual(oneToN(60));
});

test('identical requests racing on two processes store one message and leave no unused number', async () => {
  const [a, b] = await Promise.all([pod(), pod()]);
  const [alice, bob] = await Promise.all([newUser(), newUser()]);
  for (let i = 0; i < 10; i++) {
    const request = text(bob, `same-${i}`);
    const results = await Promise.all([
      a.sender.send(alice, request),
      b.sender.send(alice, request),
      a.sender.send(alice, request),
      b.sender.send(alice, request),
    ]);
    expect(new Set(results.map((result) => result.message._id)).size).toBe(1);
    expect(results.filter((result) => !result.duplicate)).toHaveLength(1);
  }
  // A process that starts now (nothing remembered) continues right after the last message.
  const { message } = await (await pod()).sender.send(bob, text(alice, 'after-the-races'));
  expect(message.sequence).toBe(11);
  expect(await storedSequences(message.conversationId)).toEqual(oneToN(11));
});

test('in one process, a retry racing its original, or one key sent to two conversations at once, takes no number', async () => {
  const a = await pod();
  const [alice, bob, carol] = await Promise.all([newUser(), newUser(), newUser()]);
  const retries = await Promise.all(
    Array.from({ length: 5 }, () => a.sender.send(alice, text(bob, 'retried'))),
  );
  expect(retries.filter((result) => !result.duplicate)).toHaveLength(1);
  const reused = await Promise.allSettled([
    a.sender.send(alice, text(bob, 'reused', 'to bob')),
    a.sender.send(alice, text(carol, 'reused', 'to carol')),
  ]);
  expect(reused.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
  // A process that starts now reads the numbers back from the store: nothing was skipped.
  const restarted = await pod();
  const toBob = await restarted.sender.send(bob, text(alice, 'bob-after'));
  const toCarol = await restarted.sender.send(carol, text(alice, 'carol-after'));
  expect(await storedSequences(toBob.message.conversationId)).toEqual(
    oneToN(toBob.message.sequence),
  );
  expect(await storedSequences(toCarol.message.conversationId)).toEqual(
    oneToN(toCarol.message.sequence),
  );
});

test('a number stays spent after its message is deleted, also for a process that starts afterwards', async () => {
  const first = await pod();
  const [alice, bob] = await Promise.all([newUser(), newUser()]);
  let conversationId = '';
  for (let i = 0; i < 3; i++)
    conversationId = (await first.sender.send(alice, text(bob, `gone-${i}`))).message
      .conversationId;
  // What the TTL index does when disappearing messages expire: the newest numbers vanish.
  await store.collection('messages').deleteMany({ conversationId });
  expect((await first.sender.send(alice, text(bob, 'same-process'))).message.sequence).toBe(4);
  await store.collection('messages').deleteMany({ conversationId });
  const restarted = await pod();
  expect((await restarted.sender.send(bob, text(alice, 'new-process'))).message.sequence).toBe(5);
});
