/**
 * A poll that a pod of the previous version stores during a rollout, after this version's
 * upgrade ran (legacy-poll-upgrade.ts), is upgraded on its first read instead of reaching code
 * that expects `places`: the read answers the new shape, and the stored record is rewritten.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EmbeddedDocumentStore } from '../../src/platform/store/embedded/embedded-store.js';
import type { DocumentStore } from '../../src/platform/store/document-store.js';
import { PollRepository } from '../../src/polls/poll.js';
import { silentLogger } from '../support/silent-logger.js';

const CREATOR = '0x' + 'a'.repeat(40);
let dataDir: string;
let store: DocumentStore;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'svc-legacy-poll-'));
  store = await EmbeddedDocumentStore.open({ dataDir, logger: silentLogger });
});

afterAll(async () => {
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it('upgrades an old-shape channel poll on its first read', async () => {
  const raw = store.collection<{ _id: string } & Record<string, unknown>>('polls');
  await raw.insertOne({
    _id: 'written-by-an-old-pod',
    question: 'Lunch?',
    options: [
      { id: 'a', text: 'Yes' },
      { id: 'b', text: 'No' },
    ],
    allowsMultiple: false,
    createdAt: new Date(),
    creatorAddress: CREATOR,
    expiresAt: null,
    channelId: 'c1',
    recipientAddress: '',
    participants: [CREATOR],
  });

  const poll = await new PollRepository(store).find('written-by-an-old-pod');

  expect(poll?.places).toEqual([
    expect.objectContaining({ conversationId: 'channel:c1', type: 'channel', channelId: 'c1' }),
  ]);
  const stored = await raw.findOne({ _id: 'written-by-an-old-pod' });
  expect(stored).toMatchObject({ places: [expect.objectContaining({ channelId: 'c1' })] });
  expect(stored).not.toHaveProperty('channelId');
  expect(stored).not.toHaveProperty('recipientAddress');
});

it('answers null for an unknown poll', async () => {
  expect(await new PollRepository(store).find('no-such-poll')).toBeNull();
});
