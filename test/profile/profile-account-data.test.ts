/**
 * The profile area's AccountDataOwner, called directly (recovery and deletion call it in their
 * walk): a move re-keys the profile and the held names and is safe to repeat after a crash; a
 * deletion removes the profile (the username's 30-day hold is identity's first step).
 */
import { BlockList } from '../../src/contacts/block-list.js';
import { BlockMirror } from '../../src/contacts/block-mirror.js';
import { AccountRepository } from '../../src/accounts/account-repository.js';
import { HeldUsernames } from '../../src/accounts/held-usernames.js';
import { Usernames } from '../../src/accounts/usernames.js';
import { accountsIndexes } from '../../src/accounts/accounts-area.js';
import { Avatars } from '../../src/media/avatars.js';
import { MediaItems } from '../../src/media/media-items.js';
import { Conversations } from '../../src/messaging/conversations/conversations.js';
import { createLogger } from '../../src/platform/logging/logger.js';
import { MemorySharedState } from '../../src/platform/shared-state/memory-shared-state.js';
import { ContactsAudience } from '../../src/presence/contacts-audience.js';
import { createProfileArea } from '../../src/profile/profile-area.js';
import { PROFILES } from '../../src/profile/profile-record.js';
import type { ProfileRecord } from '../../src/profile/profile-record.js';
import { MessagingEvents } from '../../src/events/messaging-events.js';
import { UserEventStream } from '../../src/events/user-event-stream.js';
import { openEmbeddedStore } from '../support/stores-under-test.js';
import type { StoreUnderTest } from '../support/stores-under-test.js';

const OLD = '0x' + '1'.repeat(40);
const NEW = '0x' + '2'.repeat(40);
const OTHER = '0x' + '3'.repeat(40);

let underTest: StoreUnderTest;
let accounts: AccountRepository;
let usernames: Usernames;
let area: ReturnType<typeof createProfileArea>;

beforeEach(async () => {
  underTest = await openEmbeddedStore();
  const { store } = underTest;
  await store.ensureIndexes(accountsIndexes);
  const logger = createLogger('silent');
  const shared = new MemorySharedState({ keyPrefix: 'profile-data:', logger });
  const blocks = new BlockList(store, new BlockMirror(shared));
  accounts = new AccountRepository(store);
  usernames = new Usernames(accounts, new HeldUsernames(store));
  area = createProfileArea({
    store,
    accounts,
    usernames,
    blocks,
    statuses: { seenBy: async () => ({ status: 'offline', statusText: '' }) },
    audience: new ContactsAudience(new Conversations(store, accounts), blocks),
    events: new MessagingEvents(
      new UserEventStream(shared, { retainCount: 10, retentionMs: 60_000 }),
      logger,
    ),
    avatars: new Avatars(store, new MediaItems(store)),
  });
  for (const [address, username] of [
    [OLD, 'old_name'],
    [OTHER, 'other_name'],
  ] as const) {
    await accounts.create({
      _id: address,
      username,
      displayName: '',
      createdAt: new Date(),
      permissions: [],
      mfaEnabled: false,
      origin: 'wallet',
    });
  }
});
afterEach(() => underTest.dispose());

const profileOf = (address: string) =>
  underTest.store.collection(PROFILES).findOne({ _id: address });
const holdOf = (username: string) =>
  underTest.store.collection('held_usernames').findOne({ _id: username });

it('a move re-keys the profile and the held names, and a repeated move changes nothing more', async () => {
  await usernames.change(OLD, 'renamed');
  expect(await holdOf('old_name')).toMatchObject({ formerOwner: OLD });
  await underTest.store
    .collection<ProfileRecord>(PROFILES)
    .insertOne({ _id: OLD, bio: 'my bio', avatarMediaId: 'media-1', updatedAt: new Date() });

  await area.accountData.moveAccount(OLD, NEW);
  await area.accountData.moveAccount(OLD, NEW);

  expect(await profileOf(OLD)).toBeNull();
  expect(await profileOf(NEW)).toMatchObject({ bio: 'my bio', avatarMediaId: 'media-1' });
  expect(await holdOf('old_name')).toMatchObject({ formerOwner: NEW });
  expect(await usernames.isHeldAgainst('old_name', NEW)).toBe(false);
  expect(await usernames.isHeldAgainst('old_name', OTHER)).toBe(true);
});

it('a deletion removes the profile and only it; repeating it is harmless (the name is held by identity, see delete-account.e2e)', async () => {
  await underTest.store
    .collection<ProfileRecord>(PROFILES)
    .insertOne({ _id: OLD, bio: 'bye', avatarMediaId: '', updatedAt: new Date() });
  await underTest.store
    .collection<ProfileRecord>(PROFILES)
    .insertOne({ _id: OTHER, bio: 'stays', avatarMediaId: '', updatedAt: new Date() });
  await area.accountData.deleteAccount(OLD);
  await area.accountData.deleteAccount(OLD);

  expect(await profileOf(OLD)).toBeNull();
  expect(await profileOf(OTHER)).toMatchObject({ bio: 'stays' });
});
