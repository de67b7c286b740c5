/**
 * The groups area's records over a real embedded store, driven directly: invite expiry (410)
 * without waiting a minute, and the area's AccountDataOwner (recovery moves memberships, roles,
 * ownership and removals to the new address, merging with what it already has; deletion leaves
 * every group by the rule of leaving), each run twice to show it resumes safely.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlockList } from '../../src/contacts/block-list.js';
import { BlockMirror } from '../../src/contacts/block-mirror.js';
import { createGroupsArea } from '../../src/groups/groups-area.js';
import { GroupCreation } from '../../src/groups/group-creation.js';
import { GROUP_INVITES } from '../../src/groups/group-invite.js';
import { GroupInvites } from '../../src/groups/group-invites.js';
import { GroupRemovals } from '../../src/groups/group-removals.js';
import { Groups } from '../../src/groups/groups.js';
import { Memberships } from '../../src/groups/memberships.js';
import { ACCOUNTS } from '../../src/accounts/account.js';
import type { Account } from '../../src/accounts/account.js';
import { MessageAttachments } from '../../src/media/attachments.js';
import { HeldMedia } from '../../src/media/held-media.js';
import { MediaItems } from '../../src/media/media-items.js';
import { createLogger } from '../../src/platform/logging/logger.js';
import { OutageLog } from '../../src/platform/logging/outage-log.js';
import { MemorySharedState } from '../../src/platform/shared-state/memory-shared-state.js';
import { MemoryStore } from '../../src/platform/shared-state/memory-store.js';
import { EmbeddedDocumentStore } from '../../src/platform/store/embedded/embedded-store.js';
import { messageSending } from '../support/message-sending.js';
import { silentLogger } from '../support/silent-logger.js';

let dataDir: string;
let store: EmbeddedDocumentStore;
let groups: Groups;
let memberships: Memberships;
let invites: GroupInvites;
let accountData: Awaited<ReturnType<typeof createGroupsArea>>['accountData'];

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'groups-'));
  store = await EmbeddedDocumentStore.open({ dataDir, logger: silentLogger });
  const sharedState = new MemorySharedState({
    keyPrefix: 'groups:',
    logger: createLogger('silent'),
    store: new MemoryStore(),
  });
  const { conversations, sender } = await messageSending(store, sharedState);
  const blocks = new BlockList(store, new BlockMirror(sharedState));
  const mediaItems = new MediaItems(store);
  const avatars = new HeldMedia(mediaItems);
  const messageMedia = new MessageAttachments(mediaItems);
  accountData = (
    await createGroupsArea({
      settings: { maxMembers: 1000, creationFaultExitAfterStep: 0 },
      store,
      conversations,
      sender,
      avatars,
      messageMedia,
      blocks,
      logger: createLogger('silent'),
      outages: new OutageLog(createLogger('silent')),
    })
  ).accountData;
  // The same classes the area builds, over the same store, to drive the flows directly.
  memberships = new Memberships(store, conversations, sender, avatars, messageMedia, 1000);
  invites = new GroupInvites(store, new GroupRemovals(store));
  groups = new Groups(
    conversations,
    memberships,
    invites,
    blocks,
    new GroupCreation(memberships.groups, conversations, sender, avatars, 1000, 0),
  );
});
afterEach(async () => {
  await store.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function user(): Promise<string> {
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

const rolesOf = async (groupId: string) =>
  Object.fromEntries(
    (await memberships.list(groupId)).map((member) => [member.address, member.role]),
  );

it('an expired invite code answers 410 GONE; its record is kept a day past expiry, then purged by TTL', async () => {
  const [owner, joiner] = [await user(), await user()];
  const { group } = await groups.create(owner, {
    name: 'G',
    description: '',
    avatarMediaId: '',
    memberAddresses: [],
  });
  const { code, invite } = await invites.create(group._id, owner, 0, 60);
  expect(invite.purgeAt.getTime() - invite.expiresAt.getTime()).toBe(24 * 60 * 60 * 1000);
  await store
    .collection(GROUP_INVITES)
    .updateOne({ _id: invite._id }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
  await expect(groups.join(joiner, code)).rejects.toMatchObject({
    rawMessage: 'This invite code has expired',
  });
  expect(await memberships.member(group._id, joiner)).toBeNull();
});

it('recovery moves memberships, roles and ownership to the new address, merging where it is already a member', async () => {
  const [owner, old, fresh, other] = [await user(), await user(), await user(), await user()];
  const { group: owned } = await groups.create(old, {
    name: 'Owned',
    description: '',
    avatarMediaId: '',
    memberAddresses: [other],
  });
  const { group: shared } = await groups.create(owner, {
    name: 'Shared',
    description: '',
    avatarMediaId: '',
    memberAddresses: [old, fresh],
  });
  const admin = await memberships.member(shared._id, old);
  await memberships.setRole(shared._id, owner, admin!, 'admin');
  const { group: removedFrom } = await groups.create(owner, {
    name: 'Removed',
    description: '',
    avatarMediaId: '',
    memberAddresses: [old],
  });
  await memberships.depart(removedFrom._id, old, 'member_removed', owner);

  await accountData.moveAccount(old, fresh);
  await accountData.moveAccount(old, fresh);

  expect(await rolesOf(owned._id)).toEqual({ [fresh]: 'owner', [other]: 'member' });
  expect((await memberships.groups.findOne({ _id: owned._id }))?.ownerAddress).toBe(fresh);
  // Merged: the higher role of the two records, one member fewer.
  expect(await rolesOf(shared._id)).toEqual({ [owner]: 'owner', [fresh]: 'admin' });
  expect((await memberships.groups.findOne({ _id: shared._id }))?.memberCount).toBe(2);
  expect(await store.collection(`conversation_members`).countDocuments({ address: old })).toBe(0);
  // The removal moved with the account: an old code of that group does not let the new address in.
  expect(await memberships.removals.removedAt(removedFrom._id, fresh)).toBeInstanceOf(Date);
  expect(await memberships.removals.removedAt(removedFrom._id, old)).toBeUndefined();
});

it('deletion leaves every group: ownership passes on, a group of one ends', async () => {
  const [gone, admin, member] = [await user(), await user(), await user()];
  const { group: owned } = await groups.create(gone, {
    name: 'Owned',
    description: '',
    avatarMediaId: '',
    memberAddresses: [member, admin],
  });
  await memberships.setRole(
    owned._id,
    gone,
    (await memberships.member(owned._id, admin))!,
    'admin',
  );
  const { group: alone } = await groups.create(gone, {
    name: 'Alone',
    description: '',
    avatarMediaId: '',
    memberAddresses: [],
  });

  await accountData.deleteAccount(gone);
  await accountData.deleteAccount(gone);

  expect(await rolesOf(owned._id)).toEqual({ [admin]: 'owner', [member]: 'member' });
  expect(await memberships.groups.findOne({ _id: owned._id })).toMatchObject({
    ownerAddress: admin,
    memberCount: 2,
  });
  expect(await memberships.groups.findOne({ _id: alone._id })).toBeNull();
  expect(
    await store.collection('messages').countDocuments({ conversationId: `group:${alone._id}` }),
  ).toBe(0);
  expect(await store.collection('conversation_members').countDocuments({ address: gone })).toBe(0);
});
