/**
 * A group creation killed after each of its steps (GROUP_CREATION_FAULT_EXIT_AFTER makes the
 * real service, a child process on the embedded store, kill -9 itself there). The store is read
 * right after the kill to show what the crash left; a new process on the same DATA_DIR (without
 * the fault) must finish the creation: one group, whole, with its owner, its members, its picture
 * held, one `group_created`, in every member's lists; nothing left marked as under way.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { CONVERSATION_MEMBERS } from '../../src/messaging/conversations/conversation.js';
import { GROUPS } from '../../src/groups/group.js';
import type { GroupRecord } from '../../src/groups/group.js';
import { MEDIA } from '../../src/media/media-item.js';
import type { MediaItem } from '../../src/media/media-item.js';
import { EmbeddedDocumentStore } from '../../src/platform/store/embedded/embedded-store.js';
import { startChildService } from '../support/child-service.js';
import type { ChildService } from '../support/child-service.js';
import { passesEventually } from '../support/passes-eventually.js';
import { Api, expectOk } from '../support/session-api.js';
import { silentLogger } from '../support/silent-logger.js';
import { bearer, signIn } from '../support/wallet.js';
import { addressOf } from './group-support.js';
import type { Json } from '../support/json.js';

const ENV = { RATE_LIMITS_ENABLED: 'false', KEYS_DHT: 'off' };
/** Two process starts and a resumption (RESUME_AFTER_MS, then the resumer's next run), on a loaded machine. */
const TIMEOUT_MS = 120_000;
/** The steps of group-creation.ts, after which the process is killed. */
const STEPS = [
  [1, 'the group record'],
  [2, 'the picture held'],
  [3, 'the conversation'],
  [4, 'the member records'],
  [5, 'group_created'],
] as const;

let dataDir: string;
let running: ChildService | undefined;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'group-create-crash-'));
});
afterEach(async () => {
  await running?.stop();
  running = undefined;
  await rm(dataDir, { recursive: true, force: true });
});

async function start(faultAfterStep: number): Promise<Api> {
  running = await startChildService(
    { ...ENV, GROUP_CREATION_FAULT_EXIT_AFTER: String(faultAfterStep) },
    { dataDir },
  );
  return new Api(running.baseUrl);
}

/** What the store holds, read with the service stopped. */
async function inStore<T>(read: (store: EmbeddedDocumentStore) => Promise<T>): Promise<T> {
  const store = await EmbeddedDocumentStore.open({ dataDir, logger: silentLogger });
  try {
    return await read(store);
  } finally {
    await store.close();
  }
}

test.each(STEPS)(
  'killed after step %i (%s): the next process finishes the group, whole and once',
  async (step) => {
    let api = await start(step);
    const [alice, bob, carol] = await Promise.all([
      signIn(api.baseUrl),
      signIn(api.baseUrl),
      signIn(api.baseUrl),
    ]);
    const picture = await sharp({
      create: { width: 8, height: 8, channels: 3, background: '#3366cc' },
    })
      .png()
      .toBuffer();
    const avatarId = expectOk(
      await api.post(
        '/api/v1/upload-media',
        { kind: 'avatar', content_type: 'image/png', data: picture.toString('base64') },
        bearer(alice),
      ),
    ).media_id as string;

    const exited = new Promise<void>((resolve) => running!.process.once('exit', () => resolve()));
    const reply = await fetch(api.url('/api/v1/groups/create'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(alice) },
      body: JSON.stringify({
        name: 'Crash',
        avatar_media_id: avatarId,
        member_addresses: [bob.user.address, carol.user.address],
      }),
    }).catch(() => undefined);
    expect(reply).toBeUndefined();
    await exited;
    expect(running!.process.signalCode).toBe('SIGKILL');
    running = undefined;

    // What the kill left: the group record marked as under way, and the members written up to the step.
    const left = await inStore(async (store) => ({
      groups: await store.collection<GroupRecord>(GROUPS).find({}),
      members: await store.collection(CONVERSATION_MEMBERS).find({ type: 'group' }),
    }));
    expect(left.groups).toHaveLength(1);
    expect(left.groups[0]!.pendingMembers).toEqual([addressOf(bob), addressOf(carol)]);
    expect(left.members).toHaveLength(step >= 4 ? 3 : 0);
    const groupId = left.groups[0]!._id;

    // The next process resumes the creation (sessions are durable: the same tokens work).
    api = await start(0);
    for (const member of [alice, bob, carol]) {
      await passesEventually(async () => {
        const listed = expectOk(await api.get('/api/v1/groups', bearer(member))).groups;
        expect(listed.map((group: Json) => group.id)).toEqual([groupId]);
      });
    }
    const got = expectOk(await api.get(`/api/v1/groups/${groupId}`, bearer(bob)));
    expect(got.group).toMatchObject({
      name: 'Crash',
      owner_address: addressOf(alice),
      member_count: 3,
      avatar_media_id: avatarId,
    });
    expect(
      Object.fromEntries(got.members.map((member: Json) => [member.address, member.role])),
    ).toEqual({
      [addressOf(alice)]: 'owner',
      [addressOf(bob)]: 'member',
      [addressOf(carol)]: 'member',
    });
    await passesEventually(async () => {
      const history = expectOk(
        await api.get(`/api/v1/messages?group_id=${groupId}`, bearer(carol)),
      ).messages;
      expect(history.map((message: Json) => message.system_event)).toEqual(['group_created']);
    });
    const chats = expectOk(await api.get('/api/v1/chats', bearer(carol))).chats;
    expect(chats.filter((chat: Json) => chat.group_id === groupId)).toHaveLength(1);
    expectOk(
      await api.post(
        '/api/v1/send',
        { client_message_id: 'after-crash', group_id: groupId, ciphertext: 'aGk=' },
        bearer(carol),
      ),
    );

    // Step 5 left only the marker, which the lists do not show: the resumption's log line says it ran.
    await passesEventually(async () =>
      expect(running!.output()).toContain('group creations cut off by a crash were finished'),
    );
    await running!.stop();
    running = undefined;
    const after = await inStore(async (store) => ({
      group: await store.collection<GroupRecord>(GROUPS).findOne({ _id: groupId }),
      avatar: await store.collection<MediaItem>(MEDIA).findOne({ _id: avatarId }),
    }));
    expect(after.group?.pendingMembers).toBeUndefined();
    expect(after.group?.creationCheckAt).toBeUndefined();
    expect(
      after.avatar?.references.filter(
        (reference) => reference.kind === 'group_avatar' && reference.id === groupId,
      ),
    ).toHaveLength(1);
  },
  TIMEOUT_MS,
);
