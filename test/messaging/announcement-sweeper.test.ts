/**
 * Messages left unannounced are announced by the sweepers of every api process, each to each
 * recipient once: two "pods" (each its own messaging core, as messaging-area.ts builds it) over
 * one real embedded store and one real Redis, as pods share MongoDB and Redis. The recipient's
 * event stream is made to refuse the publish (its counter overwritten with a value Redis cannot
 * increment), so the messages are stored unannounced for the recipient while the sender's own
 * stream takes them at send time.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { ACCOUNTS } from '../../src/accounts/account.js';
import type { Account } from '../../src/accounts/account.js';
import { ANNOUNCEMENT_GRACE_MS } from '../../src/messaging/messages/announcement-sweeper.js';
import type { SendRequest } from '../../src/messaging/messages/message-sender.js';
import { createLogger } from '../../src/platform/logging/logger.js';
import { openSharedState } from '../../src/platform/shared-state/open-shared-state.js';
import type { SharedState } from '../../src/platform/shared-state/shared-state.js';
import { EmbeddedDocumentStore } from '../../src/platform/store/embedded/embedded-store.js';
import { UserEventStream } from '../../src/events/user-event-stream.js';
import {
  adminConnection,
  deleteKeys,
  uniqueTestPrefix,
  withRedis,
} from '../platform/shared-state/redis-for-tests.js';
import { messageSending } from '../support/message-sending.js';
import { silentLogger } from '../support/silent-logger.js';

const logger = createLogger('silent');

await withRedis((redisUrl) => {
  const prefix = uniqueTestPrefix('announce');
  let dataDir: string;
  let store: EmbeddedDocumentStore;
  let states: SharedState[];
  let redis: Redis;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'announce-'));
    store = await EmbeddedDocumentStore.open({ dataDir, logger: silentLogger });
    // One connection per pod, as each process has its own.
    states = await Promise.all(
      [1, 2].map(() => openSharedState({ redisUrl, keyPrefix: prefix, logger })),
    );
    redis = await adminConnection(redisUrl);
  });
  afterAll(async () => {
    await redis.quit();
    await Promise.all(states.map((state) => state.close()));
    await deleteKeys(redisUrl, prefix);
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  });

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

  const text = (recipientAddress: string, clientMessageId: string): SendRequest => ({
    clientMessageId,
    recipientAddress,
    groupId: '',
    channelId: '',
    kind: 'text',
    ciphertext: Buffer.from(clientMessageId),
    mediaId: '',
    durationMs: 0,
    viewOnce: false,
  });

  /** The ids of the messages in the user's event stream, in its order. */
  async function announcedTo(address: string): Promise<string[]> {
    const stream = new UserEventStream(states[0]!, { retainCount: 100, retentionMs: 60_000 });
    const { seq } = await stream.position(address);
    if (seq === 0) return [];
    const frames = (await stream.frames(address, 1, seq))!;
    return frames.map(
      (frame) => (JSON.parse(frame) as { data: { message: { id: string } } }).data.message.id,
    );
  }

  test('two pods sweeping at once announce each message to each recipient once, in order', async () => {
    const a = await messageSending(store, states[0]!);
    const b = await messageSending(store, states[1]!);
    const [alice, bob] = await Promise.all([newUser(), newUser()]);
    const bobsCounter = `${prefix}ev:{${bob}}:seq`;
    await redis.set(bobsCounter, 'not-a-number');

    const sent = [];
    for (let i = 0; i < 20; i++)
      sent.push((await (i % 2 === 0 ? a : b).sender.send(alice, text(bob, `m-${i}`))).message);
    const ids = sent.map((message) => message._id);
    expect(await announcedTo(bob)).toEqual([]);
    expect(await announcedTo(alice)).toEqual(ids);

    await redis.del(bobsCounter);
    // Within the grace the sweepers leave the messages to their sends.
    await Promise.all([a.sweeper.sweepOnce(), b.sweeper.sweepOnce()]);
    expect(await announcedTo(bob)).toEqual([]);

    await new Promise((resolve) => setTimeout(resolve, ANNOUNCEMENT_GRACE_MS + 100));
    await Promise.all([
      a.sweeper.sweepOnce(),
      b.sweeper.sweepOnce(),
      a.sweeper.sweepOnce(),
      b.sweeper.sweepOnce(),
    ]);
    await Promise.all([a.sweeper.sweepOnce(), b.sweeper.sweepOnce()]);

    expect(await announcedTo(bob)).toEqual(ids);
    expect(await announcedTo(alice)).toEqual(ids);
    expect(await a.messages.countDocuments({ unannounced: true })).toBe(0);
  }, 20_000);
});
