/**
 * The polls area's AccountDataOwner, called directly on a real embedded store: a move re-keys
 * the polls created and received (with their direct chats' places) and the votes (keeping the new address's own vote where both
 * voted), a deletion removes the account's votes (counts drop) and the polls it created with
 * their votes. Both can run again after a crash.
 */
import { PollRepository, pollIndexes } from '../../src/polls/poll.js';
import type { PollPlace, StoredPoll } from '../../src/polls/poll.js';
import { directConversationId } from '../../src/messaging/conversations/conversation.js';
import { PollVotes, pollVoteIndexes } from '../../src/polls/poll-votes.js';
import { PollsAccountData } from '../../src/polls/polls-account-data.js';
import { openEmbeddedStore } from '../support/stores-under-test.js';
import type { StoreUnderTest } from '../support/stores-under-test.js';

const OLD = `0x${'1'.repeat(40)}`;
const NEW = `0x${'2'.repeat(40)}`;
const OTHER = `0x${'3'.repeat(40)}`;

let underTest: StoreUnderTest;
let polls: PollRepository;
let votes: PollVotes;
let owner: PollsAccountData;

beforeEach(async () => {
  underTest = await openEmbeddedStore();
  await underTest.store.ensureIndexes([...pollIndexes, ...pollVoteIndexes]);
  polls = new PollRepository(underTest.store);
  votes = new PollVotes(underTest.store);
  owner = new PollsAccountData(polls, votes);
});
afterEach(() => underTest.dispose());

/** The poll's place: the direct chat with `recipient`, or a channel when there is none. */
const placeOf = (creator: string, recipient: string): PollPlace => ({
  conversationId: recipient === '' ? 'channel:channel' : directConversationId(creator, recipient),
  type: recipient === '' ? 'channel' : 'direct',
  peer: recipient,
  groupId: '',
  channelId: recipient === '' ? 'channel' : '',
  sequence: 1,
  clientMessageId: 'poll',
  withheld: false,
});

async function poll(id: string, creator: string, recipient: string): Promise<StoredPoll> {
  const stored: StoredPoll = {
    _id: id,
    question: id,
    options: [
      { id: `${id}-a`, text: 'a' },
      { id: `${id}-b`, text: 'b' },
    ],
    allowsMultiple: true,
    createdAt: new Date(),
    creatorAddress: creator,
    expiresAt: null,
    places: [placeOf(creator, recipient)],
    participants: recipient === '' ? [creator] : [creator, recipient],
  };
  await polls.insert(stored);
  return stored;
}

const listed = async (participant: string) =>
  (await polls.page({ participant }, 50, undefined)).items.map((item) => item._id).sort();

it('a move re-keys created and received polls and the votes, keeps the new address’s vote on a merge, and can run again', async () => {
  await poll('created', OLD, OTHER);
  await poll('received', OTHER, OLD);
  await poll('in-channel', OLD, '');
  await votes.cast('received', OLD, ['received-a']);
  await votes.cast('in-channel', OLD, ['in-channel-a']);
  await votes.cast('in-channel', NEW, ['in-channel-b']);

  await owner.moveAccount(OLD, NEW);
  await owner.moveAccount(OLD, NEW);

  expect(await listed(OLD)).toEqual([]);
  expect(await listed(NEW)).toEqual(['created', 'in-channel', 'received']);
  expect((await polls.find('created'))?.creatorAddress).toBe(NEW);
  expect((await polls.find('received'))?.places).toEqual([placeOf(OTHER, NEW)]);
  expect((await polls.find('created'))?.places).toEqual([placeOf(NEW, OTHER)]);
  expect(
    (await polls.page({ participant: OTHER, peer: NEW }, 50, undefined)).items
      .map((item) => item._id)
      .sort(),
  ).toEqual(['created', 'received']);
  const received = await votes.tally('received', NEW);
  expect([received.voters, [...received.chosen]]).toEqual([1, ['received-a']]);
  const merged = await votes.tally('in-channel', NEW);
  expect([merged.voters, [...merged.chosen]]).toEqual([1, ['in-channel-b']]);
  expect((await votes.tally('received', OLD)).chosen.size).toBe(0);
});

it('a deletion removes the account’s votes and the polls it created with their votes, and can run again', async () => {
  await poll('created', OLD, OTHER);
  await poll('received', OTHER, OLD);
  await votes.cast('created', OTHER, ['created-a']);
  await votes.cast('received', OLD, ['received-a']);
  await votes.cast('received', OTHER, ['received-a', 'received-b']);

  await owner.deleteAccount(OLD);
  await owner.deleteAccount(OLD);

  expect(await polls.find('created')).toBeNull();
  expect((await votes.tally('created', OTHER)).voters).toBe(0);
  const remaining = await votes.tally('received', OTHER);
  expect(remaining.voters).toBe(1);
  expect([...remaining.countByOption.entries()].sort()).toEqual([
    ['received-a', 1],
    ['received-b', 1],
  ]);
  expect(await polls.find('received')).not.toBeNull();
});
