/**
 * Media that groups, channels and profiles hold, over real HTTP on the embedded default, with a
 * short retention and sweep interval: a group's and a channel's avatar and a channel post's
 * media outlive the retention of unreferenced uploads while held, and go once released (group
 * ended, channel deleted); post media downloads for the channel's readers only; profile avatars
 * through update-profile and the public avatar route; group file sends downloadable by members
 * only, also not by a removed member.
 */
import sharp from 'sharp';
import { expectFailure, expectOk, sleep } from '../support/session-api.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { GroupCalls, addressOf, b64, newMessageId } from '../groups/group-support.js';

const RETENTION_MS = 3000;
const { service, api } = serviceForThisFile({
  MEDIA_UNREFERENCED_RETENTION: `${RETENTION_MS}ms`,
  MEDIA_SWEEP_INTERVAL: '200ms',
});
const groups = new GroupCalls(() => api);

let alice: SignedIn;
let bob: SignedIn;
let carol: SignedIn;
beforeAll(async () => {
  [alice, bob, carol] = await Promise.all([
    signIn(service.baseUrl),
    signIn(service.baseUrl),
    signIn(service.baseUrl),
  ]);
});

const OCTETS = 'application/octet-stream';
const png = (color: string) =>
  sharp({ create: { width: 8, height: 8, channels: 3, background: color } })
    .png()
    .toBuffer();

async function upload(
  who: SignedIn,
  kind: string,
  data: Buffer,
  contentType = OCTETS,
): Promise<string> {
  return expectOk(
    await api.post(
      '/api/v1/upload-media',
      { kind, content_type: contentType, data: data.toString('base64') },
      bearer(who),
    ),
  ).media_id as string;
}
const uploadAvatar = async (who: SignedIn, color = '#3366cc') =>
  upload(who, 'avatar', await png(color), 'image/png');

async function download(who: SignedIn | undefined, path: string) {
  const response = await fetch(api.url(path), { headers: who ? bearer(who) : {} });
  return { status: response.status, data: Buffer.from(await response.arrayBuffer()) };
}
const statusOf = async (who: SignedIn, mediaId: string) =>
  (await download(who, `/api/v1/media/${mediaId}`)).status;

/** Waits past the retention of an upload made now, plus a few sweeps. */
const pastRetention = () => sleep(RETENTION_MS + 1500);

const createChannel = async (owner: SignedIn, body: Record<string, unknown> = {}) =>
  expectOk(
    await api.post(
      '/api/v1/channels',
      { name: `media ${newMessageId()}`, is_public: true, ...body },
      bearer(owner),
    ),
  ).channel.id as string;
const publish = (owner: SignedIn, channelId: string, body: Record<string, unknown>) =>
  api.post(
    `/api/v1/channels/${channelId}/posts`,
    { client_message_id: newMessageId(), ciphertext: b64('post'), ...body },
    bearer(owner),
  );

describe('held while in use, released after', () => {
  it('a group avatar, a channel avatar and a channel post’s media survive the retention; an unheld upload does not', async () => {
    const groupAvatar = await uploadAvatar(alice);
    const channelAvatar = await uploadAvatar(alice, '#cc3366');
    const postFile = await upload(alice, 'file', Buffer.from('post attachment'));
    const unheld = await upload(alice, 'file', Buffer.from('nobody uses this'));
    const group = expectOk(
      await api.post(
        '/api/v1/groups/create',
        { name: 'Pictured', avatar_media_id: groupAvatar, member_addresses: [] },
        bearer(alice),
      ),
    ).group;
    expect(group.avatar_media_id).toBe(groupAvatar);
    const channelId = await createChannel(alice, { avatar_media_id: channelAvatar });
    expectOk(await publish(alice, channelId, { kind: 'file', media_id: postFile }));

    await pastRetention();
    expect(await statusOf(alice, unheld)).toBe(410);
    for (const held of [groupAvatar, channelAvatar, postFile])
      expect(await statusOf(alice, held)).toBe(200);
    // Avatars of groups and channels are public images, like user avatars.
    expect(await statusOf(carol, groupAvatar)).toBe(200);
    expect(await statusOf(carol, channelAvatar)).toBe(200);

    // The group ends (its only member leaves) and the channel is deleted: all three are released.
    expectOk(await groups.leave(alice, group.id));
    expectOk(await api.delete(`/api/v1/channels/${channelId}`, bearer(alice)));
    await sleep(1000);
    for (const released of [groupAvatar, channelAvatar, postFile])
      expect(await statusOf(alice, released)).toBe(410);
  });

  it('a replaced channel avatar is released, the new one held', async () => {
    const first = await uploadAvatar(alice, '#112233');
    const channelId = await createChannel(alice, { avatar_media_id: first });
    await pastRetention();
    const second = await uploadAvatar(alice, '#445566');
    expect(
      expectOk(
        await api.call('PATCH', `/api/v1/channels/${channelId}`, {
          body: { avatar_media_id: second },
          headers: bearer(alice),
        }),
      ).channel.avatar_media_id,
    ).toBe(second);
    await sleep(1000);
    expect(await statusOf(alice, first)).toBe(410);
    await pastRetention();
    expect(await statusOf(alice, second)).toBe(200);
  });

  it('refuses another user’s upload (404) and another kind (400) as a group or channel avatar', async () => {
    const bobs = await uploadAvatar(bob);
    const file = await upload(alice, 'file', Buffer.from('not a picture'));
    expectFailure(
      await api.post(
        '/api/v1/groups/create',
        { name: 'G', avatar_media_id: bobs, member_addresses: [] },
        bearer(alice),
      ),
      404,
      'NOT_FOUND',
    );
    expectFailure(
      await api.post(
        '/api/v1/groups/create',
        { name: 'G', avatar_media_id: file, member_addresses: [] },
        bearer(alice),
      ),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.post('/api/v1/channels', { name: 'C', avatar_media_id: bobs }, bearer(alice)),
      404,
      'NOT_FOUND',
    );
    expectFailure(
      await publish(alice, await createChannel(alice), { kind: 'image', media_id: file }),
      400,
      'INVALID_ARGUMENT',
    );
  });
});

describe('channel post media', () => {
  it('downloads for a subscriber of a private channel; a non-reader gets 404', async () => {
    const channelId = await createChannel(alice, { is_public: false });
    const data = Buffer.from('encrypted video bytes');
    const mediaId = await upload(alice, 'video', data);
    expectOk(
      await publish(alice, channelId, { kind: 'video', media_id: mediaId, duration_ms: 1500 }),
    );
    expectOk(await api.post(`/api/v1/channels/${channelId}/subscribe`, {}, bearer(bob)));
    const got = await download(bob, `/api/v1/media/${mediaId}`);
    expect(got.status).toBe(200);
    expect(got.data.equals(data)).toBe(true);
    expectFailure(await api.get(`/api/v1/media/${mediaId}`, bearer(carol)), 404, 'NOT_FOUND');
    // Leaving the channel ends the right to its posts' media.
    expectOk(await api.post(`/api/v1/channels/${channelId}/unsubscribe`, {}, bearer(bob)));
    expect(await statusOf(bob, mediaId)).toBe(404);
  });

  it('downloads for any authenticated user in a public channel (anyone may read it)', async () => {
    const channelId = await createChannel(alice);
    const mediaId = await upload(alice, 'image', Buffer.from('encrypted image'));
    expectOk(await publish(alice, channelId, { kind: 'image', media_id: mediaId }));
    expect(await statusOf(carol, mediaId)).toBe(200);
    expect((await download(undefined, `/api/v1/media/${mediaId}`)).status).toBe(401);
  });
});

describe('profile avatars', () => {
  it('update-profile makes an avatar upload the public avatar; peer-info shows it; "" removes it', async () => {
    const image = await png('#22aa55');
    const mediaId = await upload(alice, 'avatar', image, 'image/png');
    expect(
      expectOk(
        await api.post('/api/v1/update-profile', { avatar_media_id: mediaId }, bearer(alice)),
      ).profile.avatar_media_id,
    ).toBe(mediaId);
    const served = await download(bob, `/api/v1/avatar/${addressOf(alice)}`);
    expect(served.status).toBe(200);
    expect((await sharp(served.data).metadata()).width).toBe(8);
    expect(
      expectOk(await api.get(`/api/v1/peer-info?address=${addressOf(alice)}`, bearer(bob))).peer
        .profile.avatar_media_id,
    ).toBe(mediaId);
    await pastRetention();
    expect(await statusOf(bob, mediaId)).toBe(200);

    expect(
      expectOk(await api.post('/api/v1/update-profile', { avatar_media_id: '' }, bearer(alice)))
        .profile.avatar_media_id,
    ).toBe('');
    expect((await download(bob, `/api/v1/avatar/${addressOf(alice)}`)).status).toBe(404);
  });

  it('refuses an upload of another kind (400) and someone else’s upload (404)', async () => {
    const file = await upload(alice, 'file', Buffer.from('not an image'));
    expectFailure(
      await api.post('/api/v1/update-profile', { avatar_media_id: file }, bearer(alice)),
      400,
      'INVALID_ARGUMENT',
    );
    const bobs = await uploadAvatar(bob);
    expectFailure(
      await api.post('/api/v1/update-profile', { avatar_media_id: bobs }, bearer(alice)),
      404,
      'NOT_FOUND',
    );
    expectFailure(
      await api.post('/api/v1/update-profile', { avatar_media_id: 'no-such-media' }, bearer(alice)),
      404,
      'NOT_FOUND',
    );
  });
});

describe('group media sends', () => {
  it('a member sends a file to the group; another member downloads it; a non-member and a removed member get 404', async () => {
    const groupId = await groups.create(alice, [bob]);
    const data = Buffer.from('encrypted group file');
    const mediaId = await upload(alice, 'file', data);
    expectOk(
      await api.post(
        '/api/v1/file/send',
        {
          client_message_id: newMessageId(),
          group_id: groupId,
          ciphertext: b64('file'),
          media_id: mediaId,
        },
        bearer(alice),
      ),
    );
    const got = await download(bob, `/api/v1/media/${mediaId}`);
    expect(got.status).toBe(200);
    expect(got.data.equals(data)).toBe(true);
    expectFailure(await api.get(`/api/v1/media/${mediaId}`, bearer(carol)), 404, 'NOT_FOUND');
    // The rule is membership now, not at sending time: a removed member loses access with its record.
    expectOk(await groups.remove(alice, groupId, addressOf(bob)));
    expectFailure(await api.get(`/api/v1/media/${mediaId}`, bearer(bob)), 404, 'NOT_FOUND');
    // A non-member cannot send to the group at all.
    const carols = await upload(carol, 'file', Buffer.from('intruder'));
    expectFailure(
      await api.post(
        '/api/v1/file/send',
        {
          client_message_id: newMessageId(),
          group_id: groupId,
          ciphertext: b64('x'),
          media_id: carols,
        },
        bearer(carol),
      ),
      404,
      'NOT_FOUND',
    );
  });

  it('a voice send to a group is held by the message past the retention, and released when the group ends', async () => {
    const groupId = await groups.create(alice, [bob]);
    const mediaId = await upload(alice, 'voice', Buffer.from('encrypted voice'));
    expectOk(
      await api.post(
        '/api/v1/voice/send',
        {
          client_message_id: newMessageId(),
          group_id: groupId,
          ciphertext: b64('v'),
          media_id: mediaId,
          duration_ms: 2000,
        },
        bearer(alice),
      ),
    );
    await pastRetention();
    expect(await statusOf(bob, mediaId)).toBe(200);
    // Both leave: the group and its messages end, and nothing holds the voice note any more.
    expectOk(await groups.leave(bob, groupId));
    expectOk(await groups.leave(alice, groupId));
    await sleep(1000);
    expect(await statusOf(alice, mediaId)).toBe(410);
  });
});
