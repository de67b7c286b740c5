/**
 * Each area's AccountDataOwner called directly on a real embedded store, as the account walk
 * calls them: a move re-keys the area's records to the new address (and running it again
 * after it finished, or after a partial run, changes nothing more), a deletion removes what
 * profile.proto lists. Identity's owner is exercised end to end (delete-account,
 * social-recovery and walk-crash tests: sessions, sign-in refusal, account record, MFA).
 */
import { BlockList } from '../../src/contacts/block-list.js';
import { BlockMirror } from '../../src/contacts/block-mirror.js';
import { ContactVerifications } from '../../src/contacts/contact-verifications.js';
import { ContactsAccountData } from '../../src/contacts/contacts-account-data.js';
import { contactsIndexes } from '../../src/contacts/contacts-area.js';
import { AccountRepository } from '../../src/accounts/account-repository.js';
import { KeysAccountData } from '../../src/keys/keys-account-data.js';
import { KeyBundleRepository } from '../../src/keys/store/key-bundle-repository.js';
import { OneTimePreKeys } from '../../src/keys/store/one-time-prekeys.js';
import { directConversationId, memberId } from '../../src/messaging/conversations/conversation.js';
import { Conversations } from '../../src/messaging/conversations/conversations.js';
import { MESSAGE_STARS } from '../../src/messaging/messages/stars.js';
import { MESSAGE_REACTIONS } from '../../src/messaging/messages/encrypted-reactions.js';
import { PINNED_MESSAGES } from '../../src/messaging/relations/pins.js';
import { MESSAGES } from '../../src/messaging/messages/stored-message.js';
import type { StoredMessage } from '../../src/messaging/messages/stored-message.js';
import { MessagingAccountData } from '../../src/messaging/messaging-account-data.js';
import { messagingIndexes } from '../../src/messaging/messaging-area.js';
import { createLogger } from '../../src/platform/logging/logger.js';
import type { AccountDataOwner } from '../../src/platform/account-data/account-data-owner.js';
import { MemorySharedState } from '../../src/platform/shared-state/memory-shared-state.js';
import type { DocumentStore } from '../../src/platform/store/document-store.js';
import { ContactsAudience } from '../../src/presence/contacts-audience.js';
import { Presence, PRESENCE } from '../../src/presence/presence.js';
import { RecoveryAccountData } from '../../src/recovery/recovery-account-data.js';
import { recoveryIndexes } from '../../src/recovery/recovery-area.js';
import { RecoveryConfigs } from '../../src/recovery/recovery-config.js';
import { RecoveryRequests } from '../../src/recovery/recovery-request.js';
import type { RecoveryRequestRecord } from '../../src/recovery/recovery-request.js';
import { SEALED_ENVELOPES } from '../../src/relay/sealed/sealed-envelope.js';
import type { SealedEnvelope } from '../../src/relay/sealed/sealed-envelope.js';
import { SealedMailbox } from '../../src/relay/sealed/sealed-mailbox.js';
import { MessagingEvents } from '../../src/events/messaging-events.js';
import { UserEventStream } from '../../src/events/user-event-stream.js';
import { openEmbeddedStore } from '../support/stores-under-test.js';
import type { StoreUnderTest } from '../support/stores-under-test.js';

const address = (n: number) => `0x${String(n).padStart(40, '0')}`;
const [OLD, NEW, PEER, OTHER] = [address(1), address(2), address(3), address(4)];

let opened: StoreUnderTest;
let store: DocumentStore;
const logger = createLogger('silent');
const sharedState = new MemorySharedState({ keyPrefix: 'owners:', logger });
beforeEach(async () => {
  opened = await openEmbeddedStore();
  store = opened.store;
  await store.ensureIndexes([...contactsIndexes, ...messagingIndexes, ...recoveryIndexes]);
});
afterEach(() => opened.dispose());

const ids = async (collection: string, filter: Record<string, unknown> = {}) =>
  (await store.collection(collection).find(filter)).map((doc) => doc._id).sort();

describe('contacts', () => {
  const owner = () => {
    const mirror = new BlockMirror(sharedState);
    return {
      blocks: new BlockList(store, mirror),
      verifications: new ContactVerifications(store),
      owner: new ContactsAccountData(new BlockList(store, mirror), new ContactVerifications(store)),
    };
  };

  it('moves blocks and verifications both ways, and again without change', async () => {
    const { blocks, verifications, owner: contacts } = owner();
    await blocks.block(OLD, PEER);
    await blocks.block(OTHER, OLD);
    await verifications.verify(OLD, PEER, 'k1');
    await verifications.verify(PEER, OLD, 'k2');
    await contacts.moveAccount(OLD, NEW);
    await contacts.moveAccount(OLD, NEW);
    expect(await ids('contact_blocks')).toEqual([`${NEW}|${PEER}`, `${OTHER}|${NEW}`].sort());
    expect(await blocks.isBlocked(NEW, PEER)).toBe(true);
    expect(await blocks.isBlocked(OLD, PEER)).toBe(false);
    expect(await ids('contact_verifications')).toEqual([`${NEW}|${PEER}`, `${PEER}|${NEW}`].sort());
  });

  it('deletes blocks and verifications in both directions, and only those', async () => {
    const { blocks, verifications, owner: contacts } = owner();
    await blocks.block(OLD, PEER);
    await blocks.block(OTHER, OLD);
    await blocks.block(PEER, OTHER);
    await verifications.verify(PEER, OLD, 'k');
    await verifications.verify(PEER, OTHER, 'k');
    await contacts.deleteAccount(OLD);
    expect(await ids('contact_blocks')).toEqual([`${PEER}|${OTHER}`]);
    expect(await ids('contact_verifications')).toEqual([`${PEER}|${OTHER}`]);
  });
});

describe('messaging', () => {
  const chat = directConversationId(OLD, PEER);
  const moved = directConversationId(NEW, PEER);
  async function seed() {
    const conversations = new Conversations(store, new AccountRepository(store));
    const now = new Date();
    await conversations.conversations.insertOne({
      _id: chat,
      type: 'direct',
      lastSequence: 2,
      disappearingTimerSeconds: 0,
      createdAt: now,
    });
    const member = (of: string, peer: string) => ({
      _id: memberId(chat, of),
      conversationId: chat,
      address: of,
      type: 'direct' as const,
      peerAddress: peer,
      groupId: '',
      channelId: '',
      lastReadSequence: 0,
      lastReadMessageId: '',
      activityAt: now,
    });
    await conversations.members.insertMany([member(OLD, PEER), member(PEER, OLD)]);
    await conversations.members.insertOne({
      ...member(OLD, ''),
      _id: memberId('group:g1', OLD),
      conversationId: 'group:g1',
      type: 'group',
      groupId: 'g1',
    });
    const message = (
      id: string,
      from: string,
      to: string,
      sequence: number,
      status: 'sent' | 'delivered',
    ) => ({
      _id: id,
      conversationId: chat,
      sequence,
      senderAddress: from,
      recipientAddress: to,
      status,
      sentAt: now,
    });
    await store
      .collection(MESSAGES)
      .insertMany([
        message('m1', OLD, PEER, 1, 'delivered'),
        message('m2', PEER, OLD, 2, 'sent'),
      ] as never);
    await store.collection(MESSAGE_STARS).insertOne({
      _id: `${OLD}|m2`,
      address: OLD,
      messageId: 'm2',
      conversationId: chat,
      starredAt: now,
    } as never);
    return new MessagingAccountData(store, conversations, store.collection(MESSAGES));
  }

  it('moves direct chats (with their history), group memberships and stars', async () => {
    const messaging = await seed();
    await messaging.moveAccount(OLD, NEW);
    await messaging.moveAccount(OLD, NEW);
    expect(await ids('conversations')).toEqual([moved]);
    expect(await ids('conversation_members')).toEqual(
      [memberId(moved, NEW), memberId(moved, PEER), memberId('group:g1', NEW)].sort(),
    );
    expect(
      await store.collection('conversation_members').findOne({ _id: memberId(moved, PEER) }),
    ).toMatchObject({ peerAddress: NEW, conversationId: moved });
    const messages = await store
      .collection<StoredMessage>(MESSAGES)
      .find({}, { sort: { sequence: 1 } });
    expect(messages.map((m) => [m.conversationId, m.senderAddress, m.recipientAddress])).toEqual([
      [moved, NEW, PEER],
      [moved, PEER, NEW],
    ]);
    expect(await store.collection(MESSAGE_STARS).find({})).toEqual([
      expect.objectContaining({ _id: `${NEW}|m2`, address: NEW, conversationId: moved }),
    ]);
  });

  it('deletes stars, the own side of direct chats and undelivered messages; the peer keeps its side', async () => {
    const messaging = await seed();
    await messaging.deleteAccount(OLD);
    expect(await ids(MESSAGE_STARS)).toEqual([]);
    expect(await ids('conversation_members')).toEqual(
      [memberId(chat, PEER), memberId('group:g1', OLD)].sort(),
    );
    expect(await ids(MESSAGES)).toEqual(['m1']);
  });

  /** A reaction and a pin by OLD in the direct chat, m1 hidden by OLD and m2 mentioning it. */
  async function seedRelations() {
    const messaging = await seed();
    await store.collection(MESSAGE_REACTIONS).insertOne({
      _id: `m2|${OLD}`,
      messageId: 'm2',
      conversationId: chat,
      reactorAddress: OLD,
      ciphertext: Buffer.from('r'),
      reactedAt: new Date(),
    } as never);
    await store.collection(PINNED_MESSAGES).insertOne({
      _id: `${chat}|m1`,
      conversationId: chat,
      messageId: 'm1',
      pinnedBy: OLD,
      pinnedAt: new Date(),
    } as never);
    await store.collection(MESSAGES).updateOne({ _id: 'm1' }, { $set: { hiddenFor: [OLD] } });
    await store.collection(MESSAGES).updateOne({ _id: 'm2' }, { $set: { mentions: [OLD] } });
    return messaging;
  }

  it('moves relations: reactions, pins of the moved chat, hidden messages and mentions', async () => {
    const messaging = await seedRelations();
    await messaging.moveAccount(OLD, NEW);
    await messaging.moveAccount(OLD, NEW);
    expect(await store.collection(MESSAGE_REACTIONS).find({})).toEqual([
      expect.objectContaining({ _id: `m2|${NEW}`, reactorAddress: NEW, conversationId: moved }),
    ]);
    expect(await store.collection(PINNED_MESSAGES).find({})).toEqual([
      expect.objectContaining({ _id: `${moved}|m1`, conversationId: moved, pinnedBy: NEW }),
    ]);
    const messages = await store
      .collection<StoredMessage>(MESSAGES)
      .find({}, { sort: { sequence: 1 } });
    expect(messages.map((m) => [m.hiddenFor, m.mentions])).toEqual([
      [[NEW], undefined],
      [undefined, [NEW]],
    ]);
  });

  it('deletes relations: its reactions go, its pins and hidden marks lose its address', async () => {
    const messaging = await seedRelations();
    await messaging.deleteAccount(OLD);
    expect(await ids(MESSAGE_REACTIONS)).toEqual([]);
    expect(await store.collection(PINNED_MESSAGES).find({})).toEqual([
      expect.objectContaining({ messageId: 'm1', pinnedBy: '' }),
    ]);
    expect(
      (await store.collection<StoredMessage>(MESSAGES).findOne({ _id: 'm1' }))!.hiddenFor,
    ).toEqual([]);
  });
});

describe('presence, keys and relay', () => {
  it('presence: the status follows a move; a deletion removes it', async () => {
    const events = new MessagingEvents(
      new UserEventStream(sharedState, { retainCount: 10, retentionMs: 60_000 }),
      logger,
    );
    const blocks = new BlockList(store, new BlockMirror(sharedState));
    const audience = new ContactsAudience(
      new Conversations(store, new AccountRepository(store)),
      blocks,
    );
    const presence = new Presence(store, audience, blocks, events);
    await presence.set(OLD, 'busy', 'x');
    await presence.moveRecord(OLD, NEW);
    expect(await ids(PRESENCE)).toEqual([NEW]);
    await presence.removeRecord(NEW);
    expect(await ids(PRESENCE)).toEqual([]);
  });

  it('keys: a move and a deletion both remove the bundle and the one-time prekeys', async () => {
    const keys: AccountDataOwner = new KeysAccountData(
      new KeyBundleRepository(store),
      new OneTimePreKeys(store),
    );
    for (const owner of [OLD, PEER]) {
      await store.collection('key_bundles').insertOne({ _id: owner, identityKey: 'k' } as never);
      await store
        .collection('one_time_prekeys')
        .insertOne({ _id: `${owner}:1`, owner, keyId: 1, publicKey: 'p' } as never);
    }
    await keys.moveAccount(OLD, NEW);
    expect(await ids('key_bundles')).toEqual([PEER]);
    expect(await ids('one_time_prekeys')).toEqual([`${PEER}:1`]);
    await keys.deleteAccount(PEER);
    expect(await ids('key_bundles')).toEqual([]);
    expect(await ids('one_time_prekeys')).toEqual([]);
  });

  it('relay: queued envelopes follow a move; a deletion drops them', async () => {
    const mailbox = new SealedMailbox(store);
    await mailbox.accept(OLD, 'c1', new Uint8Array([1]));
    await mailbox.accept(PEER, 'c1', new Uint8Array([2]));
    await mailbox.moveQueue(OLD, NEW);
    expect(
      (await store.collection<SealedEnvelope>(SEALED_ENVELOPES).find({}))
        .map((e) => e.recipient)
        .sort(),
    ).toEqual([NEW, PEER].sort());
    await mailbox.removeQueue(NEW);
    expect(
      (await store.collection<SealedEnvelope>(SEALED_ENVELOPES).find({})).map((e) => e.recipient),
    ).toEqual([PEER]);
  });
});

describe('recovery', () => {
  const request = (
    id: string,
    owner: string,
    guardians: string[],
    newWallet = address(9),
  ): RecoveryRequestRecord => ({
    _id: id,
    address: owner,
    newWalletAddress: newWallet,
    status: 'pending',
    open: true,
    approvalsRequired: 1,
    guardians,
    decisions: [],
    approvals: 0,
    rejections: 0,
    timeLockHours: 24,
    createdAt: new Date(),
    thresholdReachedAt: null,
    unlocksAt: null,
    expiresAt: new Date(Date.now() + 60_000),
    closedAt: null,
  });
  const config = (owner: string, guardians: string[]) => ({
    _id: owner,
    configurationId: 'c',
    guardians,
    minGuardiansRequired: guardians.length,
    timeLockHours: 24,
    recoveryEmailHash: '',
    codes: [],
    codeFailures: 0,
    codesLockedUntil: null,
    configuredAt: new Date(),
  });

  it('a move re-keys the configuration, completes the request that moved it and renames the account where it guards', async () => {
    const configs = new RecoveryConfigs(store);
    const requests = new RecoveryRequests(store, 3_600_000);
    await configs.save(config(OLD, [PEER]));
    await configs.save(config(OTHER, [OLD, PEER]));
    await requests.open(request('r1', OLD, [PEER], NEW));
    await requests.open({
      ...request('r2', OTHER, [OLD, PEER]),
      decisions: [{ guardian: OLD, decision: 'approved', at: new Date(), reason: '' }],
      approvals: 1,
    });
    const recovery = new RecoveryAccountData(configs, requests);
    await recovery.moveAccount(OLD, NEW);
    await recovery.moveAccount(OLD, NEW);
    expect(await configs.find(OLD)).toBeNull();
    expect(await configs.find(NEW)).toMatchObject({ guardians: [PEER] });
    expect(await configs.find(OTHER)).toMatchObject({ guardians: [NEW, PEER] });
    expect(await requests.find('r1')).toMatchObject({ status: 'completed' });
    expect(await requests.find('r2')).toMatchObject({
      guardians: [NEW, PEER],
      decisions: [expect.objectContaining({ guardian: NEW })],
    });
  });

  it('a deletion removes the configuration, cancels the open request and leaves the guardianships of others', async () => {
    const configs = new RecoveryConfigs(store);
    const requests = new RecoveryRequests(store, 3_600_000);
    await configs.save(config(OLD, [PEER]));
    await configs.save(config(OTHER, [OLD, PEER]));
    await requests.open(request('r1', OLD, [PEER]));
    await requests.open(request('r2', OTHER, [OLD, PEER]));
    await new RecoveryAccountData(configs, requests).deleteAccount(OLD);
    expect(await configs.find(OLD)).toBeNull();
    expect(await configs.find(OTHER)).toMatchObject({ guardians: [PEER], minGuardiansRequired: 1 });
    expect(await requests.find('r1')).toMatchObject({ status: 'cancelled' });
    expect(await requests.find('r2')).toMatchObject({ guardians: [PEER] });
  });
});
