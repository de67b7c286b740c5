/**
 * Polls stored before `places` (one channel or one direct recipient per poll) after an
 * upgrade: records of the old shape are written straight into an embedded store, upgraded
 * (twice: the second run changes nothing) and the service started on that DATA_DIR, which
 * upgrades what is left at start. Then a channel's reader and a direct chat's recipient see the
 * poll and vote, the recipient lists it, a withheld recipient and a stranger get 404.
 */
import { EmbeddedDocumentStore } from '../../src/platform/store/embedded/embedded-store.js';
import type { DocumentStore } from '../../src/platform/store/document-store.js';
import { directConversationId } from '../../src/messaging/conversations/conversation.js';
import { upgradeLegacyPolls } from '../../src/polls/legacy-poll-upgrade.js';
import { Api, expectFailure, expectOk } from '../support/session-api.js';
import { silentLogger } from '../support/silent-logger.js';
import { startTestService } from '../support/start-service.js';
import type { TestService } from '../support/start-service.js';
import { addressOf } from '../groups/group-support.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';

let service: TestService;
let api: Api;
let alice: SignedIn;
let bob: SignedIn;
let carol: SignedIn;
let stranger: SignedIn;
let channelId: string;
let stored: Record<string, Record<string, unknown>>;

const OPTIONS = [
  { id: 'a', text: 'Yes' },
  { id: 'b', text: 'No' },
];

/** A poll as the code before `places` stored it. */
function oldPoll(id: string, fields: Record<string, unknown>) {
  return {
    _id: id,
    question: `Old poll ${id}?`,
    options: OPTIONS,
    allowsMultiple: false,
    createdAt: new Date(),
    creatorAddress: addressOf(alice),
    expiresAt: null,
    channelId: '',
    recipientAddress: '',
    participants: [addressOf(alice)],
    ...fields,
  };
}

async function withStore<T>(dataDir: string, use: (store: DocumentStore) => Promise<T>) {
  const store = await EmbeddedDocumentStore.open({ dataDir, logger: silentLogger });
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

beforeAll(async () => {
  const first = await startTestService({}, { keepData: true });
  const firstApi = new Api(first.baseUrl);
  try {
    [alice, bob, carol, stranger] = (await Promise.all(
      Array.from({ length: 4 }, () => signIn(first.baseUrl)),
    )) as [SignedIn, SignedIn, SignedIn, SignedIn];
    channelId = expectOk(
      await firstApi.post(
        '/api/v1/channels',
        { name: 'old polls', is_public: true },
        bearer(alice),
      ),
    ).channel.id as string;
  } finally {
    await first.stop();
  }
  stored = await withStore(first.dataDir, async (store) => {
    const polls = store.collection<{ _id: string } & Record<string, unknown>>('polls');
    await polls.insertMany([
      oldPoll('old-channel', { channelId }),
      oldPoll('old-direct', {
        recipientAddress: addressOf(bob),
        participants: [addressOf(alice), addressOf(bob)],
      }),
      oldPoll('old-withheld', { recipientAddress: addressOf(carol), withheld: true }),
    ]);
    // The `poll` message the old code sent in the direct chat (appendPoll).
    await store.collection<{ _id: string } & Record<string, unknown>>('messages').insertOne({
      _id: 'old-direct-message',
      conversationId: directConversationId(addressOf(alice), addressOf(bob)),
      sequence: 7,
      clientMessageId: 'old-key',
      senderAddress: addressOf(alice),
      recipientAddress: addressOf(bob),
      groupId: '',
      channelId: '',
      kind: 'poll',
      pollId: 'old-direct',
      sentAt: new Date(),
      withheld: false,
    });
    const upgraded = [await upgradeLegacyPolls(store), await upgradeLegacyPolls(store)];
    expect(upgraded).toEqual([3, 0]);
    // Left for the service's start to upgrade.
    await polls.insertOne(oldPoll('old-at-start', { channelId }));
    const records = await polls.find({});
    return Object.fromEntries(records.map((record) => [record._id, record]));
  });
  service = await startTestService({}, { dataDir: first.dataDir });
  api = new Api(service.baseUrl);
}, 60_000);
afterAll(() => service?.stop());

const read = (by: SignedIn, pollId: string) => api.get(`/api/v1/polls/${pollId}`, bearer(by));
const vote = (by: SignedIn, pollId: string) =>
  api.post('/api/v1/polls/vote', { poll_id: pollId, option_ids: ['a'] }, bearer(by));
const listed = async (by: SignedIn, query = '') =>
  expectOk(await api.get(`/api/v1/polls${query}`, bearer(by))).polls.map(
    (poll: { id: string }) => poll.id,
  );

it('rewrites the old fields as places, with the direct poll message’s number and key', () => {
  expect(stored['old-channel']).toEqual(
    expect.objectContaining({
      places: [
        {
          conversationId: `channel:${channelId}`,
          type: 'channel',
          peer: '',
          groupId: '',
          channelId,
          sequence: 0,
          clientMessageId: '',
          withheld: false,
        },
      ],
      participants: [addressOf(alice)],
    }),
  );
  expect(stored['old-direct']).toEqual(
    expect.objectContaining({
      places: [
        {
          conversationId: directConversationId(addressOf(alice), addressOf(bob)),
          type: 'direct',
          peer: addressOf(bob),
          groupId: '',
          channelId: '',
          sequence: 7,
          clientMessageId: 'old-key',
          withheld: false,
        },
      ],
      participants: [addressOf(alice), addressOf(bob)],
    }),
  );
  expect(stored['old-withheld']).toMatchObject({
    places: [{ type: 'direct', peer: addressOf(carol), sequence: 0, withheld: true }],
    participants: [addressOf(alice)],
  });
  for (const id of ['old-channel', 'old-direct', 'old-withheld']) {
    expect(stored[id]).not.toHaveProperty('channelId');
    expect(stored[id]).not.toHaveProperty('recipientAddress');
    expect(stored[id]).not.toHaveProperty('withheld');
  }
});

it('shows an old channel poll to the channel’s readers, who vote and list it', async () => {
  for (const id of ['old-channel', 'old-at-start']) {
    expect(expectOk(await read(bob, id)).poll.id).toBe(id);
    expect(expectOk(await vote(bob, id)).poll.total_votes).toBe(1);
  }
  const inChannel = await listed(bob, `?channel_id=${channelId}`);
  expect(inChannel).toEqual(expect.arrayContaining(['old-channel', 'old-at-start']));
});

it('shows an old direct poll to its recipient, who votes and lists it; others get 404', async () => {
  expect(expectOk(await read(bob, 'old-direct')).poll.id).toBe('old-direct');
  expect(expectOk(await vote(bob, 'old-direct')).poll.total_votes).toBe(1);
  expect(await listed(bob)).toContain('old-direct');
  expect(await listed(bob, `?peer_address=${addressOf(alice)}`)).toEqual(['old-direct']);
  expect(await listed(alice, `?peer_address=${addressOf(bob)}`)).toEqual(['old-direct']);
  expect(expectOk(await read(alice, 'old-withheld')).poll.id).toBe('old-withheld');
  for (const [who, id] of [
    [stranger, 'old-direct'],
    [carol, 'old-direct'],
    [carol, 'old-withheld'],
  ] as const) {
    expectFailure(await read(who, id), 404, 'NOT_FOUND');
    expectFailure(await vote(who, id), 404, 'NOT_FOUND');
  }
  expect(await listed(carol)).not.toContain('old-withheld');
});
