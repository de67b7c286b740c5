/**
 * Every query of the hot paths is answered through an index, on every engine (MongoDB when
 * MONGODB_URL is set: there `explain()` asks the server's own planner; the embedded engine
 * answers with MongoDB's index-eligibility rules, partial-filter implication included). The
 * paths run for real over a recording store, so a query changed in the code is checked as
 * it is, not as a copy of it here.
 *
 * Covered: send (with its idempotency lookup, a retry, a group's audience, the chat-list
 * update and the batched "announced" marks), the sweeper of unannounced messages,
 * history pages, the chat list, the groups area's flows, and session lookups. The prekey take belongs to the keys
 * service, which does not exist yet: add its flow here with it.
 */
import { BlockList } from '../../../src/contacts/block-list.js';
import { BlockMirror } from '../../../src/contacts/block-mirror.js';
import { groupsIndexes } from '../../../src/groups/groups-area.js';
import { GroupInvites } from '../../../src/groups/group-invites.js';
import { GroupCreation } from '../../../src/groups/group-creation.js';
import { Groups } from '../../../src/groups/groups.js';
import { Memberships } from '../../../src/groups/memberships.js';
import { AccountRepository } from '../../../src/accounts/account-repository.js';
import { Revocations } from '../../../src/identity/sessions/revocations.js';
import { SessionActivity } from '../../../src/identity/sessions/session-activity.js';
import { SessionManager } from '../../../src/identity/sessions/session-manager.js';
import { sessionIndexes } from '../../../src/identity/sessions/session.js';
import { accountIndexes } from '../../../src/accounts/account.js';
import { ChatList } from '../../../src/messaging/chats/chat-list.js';
import { History } from '../../../src/messaging/messages/history.js';
import { MessageAttachments } from '../../../src/media/attachments.js';
import { HeldMedia } from '../../../src/media/held-media.js';
import { MediaItems } from '../../../src/media/media-items.js';
import type { SendRequest } from '../../../src/messaging/messages/message-sender.js';
import { createLogger } from '../../../src/platform/logging/logger.js';
import { MemorySharedState } from '../../../src/platform/shared-state/memory-shared-state.js';
import { messageSending } from '../../support/message-sending.js';
import { recordingStore, type RecordedQuery } from '../../support/recording-store.js';
import { forEachStore, type StoreUnderTest } from '../../support/stores-under-test.js';

const logger = createLogger('silent');
const alice = `0x${'a1'.repeat(20)}`;
const bob = `0x${'b2'.repeat(20)}`;

forEachStore('hot_queries', (engine, open) => {
  describe(`hot queries use an index on ${engine}`, () => {
    let subject: StoreUnderTest;
    beforeAll(async () => {
      subject = await open();
    });
    afterAll(() => subject.dispose());

    async function plansOf(queries: RecordedQuery[]) {
      return Promise.all(
        queries.map(async (query) => ({
          ...query,
          plan: await subject.store.explain(
            query.collection,
            query.filter,
            query.sort ? { sort: query.sort } : {},
          ),
        })),
      );
    }
    const scans = (planned: Awaited<ReturnType<typeof plansOf>>) =>
      planned
        .filter(({ plan }) => plan.stage !== 'IXSCAN')
        .map(
          ({ collection, method, filter }) => `${collection}.${method} ${JSON.stringify(filter)}`,
        );

    test('send, retry, history pages and the chat list', async () => {
      const { store, queries } = recordingStore(subject.store);
      await store.ensureIndexes(accountIndexes);
      const accounts = new AccountRepository(store);
      for (const address of [alice, bob]) {
        await accounts.create({
          _id: address,
          username: address.slice(2, 10),
          displayName: '',
          createdAt: new Date(),
          permissions: [],
          mfaEnabled: false,
          origin: 'wallet',
        });
      }
      const state = new MemorySharedState({ keyPrefix: 'hot:', logger });
      const messaging = await messageSending(store, state);
      // A group's member records, as the groups service writes them.
      const groupId = 'g1';
      await messaging.conversations.members.insertMany(
        [alice, bob].map((address) => ({
          _id: `group:${groupId}|${address}`,
          conversationId: `group:${groupId}`,
          address,
          type: 'group' as const,
          peerAddress: '',
          groupId,
          channelId: '',
          role: 'member' as const,
          lastReadSequence: 0,
          lastReadMessageId: '',
          activityAt: new Date(),
        })),
      );
      queries.length = 0; // start-up queries are not hot

      const send = (clientMessageId: string): SendRequest => ({
        clientMessageId,
        recipientAddress: bob,
        groupId: '',
        channelId: '',
        kind: 'text',
        ciphertext: Buffer.from('sealed'),
        mediaId: '',
        durationMs: 0,
        viewOnce: false,
      });
      const first = await messaging.sender.send(alice, send('m-1'));
      await messaging.sender.send(alice, send('m-2'));
      expect((await messaging.sender.send(alice, send('m-1'))).duplicate).toBe(true);
      await messaging.sender.send(bob, { ...send('g-1'), recipientAddress: '', groupId });
      await messaging.sweeper.sweepOnce();
      const history = new History(messaging.messages);
      const page = await history.read(first.message.conversationId, alice, {
        pageSize: 1,
        beforeCursor: '',
        afterCursor: '',
      });
      await history.read(first.message.conversationId, alice, {
        pageSize: 1,
        beforeCursor: page.beforeCursor,
        afterCursor: '',
      });
      await new ChatList(messaging.conversations, messaging.messages, accounts, {
        chatsOf: async () => [],
        lastPosts: async () => new Map(),
      }).page(bob, 20, undefined);

      const planned = await plansOf(queries);
      expect(planned.map(({ collection }) => collection)).toEqual(
        expect.arrayContaining(['messages', 'conversations', 'conversation_members', 'accounts']),
      );
      // The sweeper's query and the announced marks ran, and through which index.
      const announcing = planned.filter(
        ({ method, filter }) =>
          (method === 'find' && 'unannounced' in filter) ||
          (method === 'updateMany' && '_id' in filter),
      );
      expect(announcing.map(({ method, plan }) => `${method} ${plan.indexes.join()}`)).toEqual(
        expect.arrayContaining(['find unannounced', 'updateMany _id_']),
      );
      expect(scans(planned)).toEqual([]);
    });

    test('groups: create, invite, join, list, get, role change, leave with ownership passing', async () => {
      const { store, queries } = recordingStore(subject.store);
      await store.ensureIndexes(accountIndexes);
      const accounts = new AccountRepository(store);
      const carol = `0x${'c3'.repeat(20)}`;
      for (const address of [alice, bob, carol]) {
        if (!(await accounts.find(address)))
          await accounts.create({
            _id: address,
            username: address.slice(2, 10),
            displayName: '',
            createdAt: new Date(),
            permissions: [],
            mfaEnabled: false,
            origin: 'wallet',
          });
      }
      const state = new MemorySharedState({ keyPrefix: 'hot-groups:', logger });
      const messaging = await messageSending(store, state);
      const blocks = new BlockList(store, new BlockMirror(state));
      await store.ensureIndexes(groupsIndexes);
      const mediaItems = new MediaItems(store);
      const avatars = new HeldMedia(mediaItems);
      const memberships = new Memberships(
        store,
        messaging.conversations,
        messaging.sender,
        avatars,
        new MessageAttachments(mediaItems),
        1000,
      );
      const invites = new GroupInvites(store, memberships.removals);
      const groups = new Groups(
        messaging.conversations,
        memberships,
        invites,
        blocks,
        new GroupCreation(
          memberships.groups,
          messaging.conversations,
          messaging.sender,
          avatars,
          1000,
          0,
        ),
      );
      queries.length = 0;

      const { group } = await groups.create(alice, {
        name: 'Hot',
        description: '',
        avatarMediaId: '',
        memberAddresses: [bob],
      });
      const { code } = await invites.create(group._id, alice, 5, 0);
      await groups.join(carol, code);
      await groups.join(carol, code);
      await groups.listOf(bob, 20, undefined);
      await memberships.list(group._id);
      await memberships.setRole(
        group._id,
        alice,
        (await memberships.member(group._id, carol))!,
        'admin',
      );
      await memberships.depart(group._id, bob, 'member_removed', alice);
      await memberships.depart(group._id, alice, 'member_left', alice);

      const planned = await plansOf(queries);
      expect(planned.map(({ collection }) => collection)).toEqual(
        expect.arrayContaining([
          'groups',
          'group_invites',
          'group_removals',
          'conversation_members',
        ]),
      );
      expect(scans(planned)).toEqual([]);
    });

    test('session lookups', async () => {
      const { store, queries } = recordingStore(subject.store);
      await store.ensureIndexes(sessionIndexes);
      const sharedState = new MemorySharedState({ keyPrefix: 'hot:', logger });
      const sessions = new SessionManager(
        store,
        new Revocations(sharedState, 900_000),
        new SessionActivity(sharedState),
        { ttlMs: 3_600_000, idleTimeoutMs: 0 },
      );
      queries.length = 0;
      const opened = await sessions.open({
        address: alice,
        authMethod: 'wallet',
        deviceName: 'test',
        userAgent: 'jest',
        ip: '127.0.0.1',
        dpopJkt: '',
      });
      await sessions.findActive(opened.session._id);
      await sessions.findByCookie(opened.cookieValue);
      await sessions.listActive(alice);
      await sessions.touch(opened.session._id, true);

      const planned = await plansOf(queries);
      expect(planned.length).toBeGreaterThan(3);
      expect(scans(planned)).toEqual([]);
    });
  });
});
