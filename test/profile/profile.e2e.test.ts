/**
 * Usernames and public profiles over real HTTP, native gRPC and a real WebSocket client, on the
 * single-process embedded default: the username rules, the 30-day hold of a former name, a race
 * of concurrent claims, partial profile updates, what a blocked viewer sees, and the
 * `profile.changed` event reaching the user's contacts.
 */
import { fileURLToPath } from 'node:url';
import { grpc, grpcClient, unary } from '../support/grpc-client.js';
import { RealtimeClient } from '../support/realtime-client.js';
import { expectFailure, expectOk } from '../support/session-api.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import {
  expectFailure as expectHttpFailure,
  freshMessage,
  signAndPost,
} from '../support/signin-http.js';
import { TestUser, bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';

const { service, api } = serviceForThisFile({ RATE_LIMITS_ENABLED: 'false' });
const clients: RealtimeClient[] = [];
afterAll(() => clients.forEach((client) => client.close()));

const addressOf = (session: SignedIn) => session.user.address.toLowerCase();
let names = 0;
const freshName = (stem = 'name') =>
  `${stem}_${process.pid % 10_000}_${Date.now() % 100_000}_${++names}`;
const updateUsername = (session: SignedIn, username: string) =>
  api.post('/api/v1/update-username', { username }, bearer(session));
const updateProfile = (session: SignedIn, body: Record<string, unknown>) =>
  api.post('/api/v1/update-profile', body, bearer(session));
const peerInfo = (viewer: SignedIn, peer: SignedIn) =>
  api.get(`/api/v1/peer-info?address=${peer.user.address}`, bearer(viewer));
const checkUsername = (username: string) => api.post('/api/v1/check-username', { username });

describe('update-username', () => {
  it('stores the trimmed, lowercased name and returns the profile; the same name again changes nothing', async () => {
    const alice = await signIn(service.baseUrl);
    const name = freshName('alice');
    const body = expectOk(await updateUsername(alice, `  ${name.toUpperCase()}  `));
    expect(body).toMatchObject({
      username: name,
      message: 'Username changed',
      profile: { address: addressOf(alice), username: name },
    });
    expect(expectOk(await updateUsername(alice, name))).toMatchObject({
      username: name,
      message: 'Username unchanged',
    });
    expect(
      expectOk(await peerInfo(await signIn(service.baseUrl), alice)).peer.profile.username,
    ).toBe(name);
  });

  it('refuses malformed names with 400 and reserved or taken names with 409', async () => {
    const [alice, bob] = await Promise.all([signIn(service.baseUrl), signIn(service.baseUrl)]);
    for (const bad of ['', 'ab', 'x'.repeat(33), '1abc', 'has space', 'émile', 'a'.repeat(65)])
      expectFailure(await updateUsername(alice, bad), 400, 'INVALID_ARGUMENT');
    for (const reserved of ['admin', ' Support ', 'SYSTEM'])
      expectFailure(await updateUsername(alice, reserved), 409, 'CONFLICT');
    expectFailure(await updateUsername(alice, bob.user.username.toUpperCase()), 409, 'CONFLICT');
    expectFailure(
      await api.post('/api/v1/update-username', { username: freshName(), extra: 1 }, bearer(alice)),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.post('/api/v1/update-username', { username: freshName() }),
      401,
      'UNAUTHORIZED',
    );
    expect(expectOk(await peerInfo(bob, alice)).peer.profile.username).toBe(
      alice.user.username.toLowerCase(),
    );
  });

  it('holds the former name for its owner: others get 409 (update and registration), the owner may take it back', async () => {
    const [alice, bob] = await Promise.all([signIn(service.baseUrl), signIn(service.baseUrl)]);
    const former = alice.user.username.toLowerCase();
    expectOk(await updateUsername(alice, freshName('moved')));
    expectFailure(await updateUsername(bob, former), 409, 'CONFLICT');
    expect(expectOk(await checkUsername(former))).toMatchObject({
      available: false,
      reason: 'taken',
    });
    const newcomer = new TestUser();
    expectHttpFailure(
      await signAndPost(
        service.baseUrl,
        newcomer,
        freshMessage('registration compact', newcomer, { username: former }),
        { username: former },
      ),
      409,
      'CONFLICT',
    );
    expect(expectOk(await updateUsername(alice, former)).username).toBe(former);
  });

  it('of 24 concurrent claims of one free name from separate clients (20 renames, 4 registrations) exactly one wins, the others get 409', async () => {
    const users = await Promise.all(Array.from({ length: 20 }, () => signIn(service.baseUrl)));
    const name = freshName('race');
    const newcomers = Array.from({ length: 4 }, () =>
      Object.assign(new TestUser(), { username: name }),
    );
    const replies = await Promise.all([
      ...users.map((user) => updateUsername(user, name)),
      ...newcomers.map(async (newcomer) =>
        api.post('/api/v1/initialize', await newcomer.initializeBody('register')),
      ),
    ]);
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(1);
    for (const reply of replies.filter((each) => each.status !== 200))
      expectFailure(reply, 409, 'CONFLICT');
    // Every client agrees on the one owner: whoever won, the others kept their own names.
    const winner = replies.findIndex((reply) => reply.status === 200);
    const owners = await Promise.all(
      users.map(
        async (user) => expectOk(await peerInfo(users[0]!, user)).peer.profile.username as string,
      ),
    );
    expect(owners.filter((username) => username === name)).toHaveLength(
      winner < users.length ? 1 : 0,
    );
    expect(expectOk(await checkUsername(name)).available).toBe(false);
  });

  it('is served over native gRPC with the same rules', async () => {
    const alice = await signIn(service.baseUrl);
    const client = grpcClient(
      service.grpcAddress,
      fileURLToPath(new URL('../../proto/service/v1/profile.proto', import.meta.url)),
      'service.v1.ProfileService',
    );
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${alice.accessToken}`);
    const name = freshName('grpc');
    expect(await unary(client, 'UpdateUsername', { username: name }, metadata)).toMatchObject({
      success: true,
      username: name,
      profile: { username: name },
    });
    await expect(
      unary(client, 'UpdateUsername', { username: 'admin' }, metadata),
    ).rejects.toMatchObject({ code: grpc.status.ALREADY_EXISTS });
    await expect(
      unary(client, 'UpdateUsername', { username: '!' }, metadata),
    ).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
    client.close();
  });
});

describe('update-profile', () => {
  it('updates only the fields present, trims the display name, and clears a field with ""', async () => {
    const alice = await signIn(service.baseUrl);
    expect(
      expectOk(
        await updateProfile(alice, { display_name: '  Alice A.  ', bio: 'line one\nline two' }),
      ).profile,
    ).toMatchObject({ display_name: 'Alice A.', bio: 'line one\nline two' });
    expect(expectOk(await updateProfile(alice, { bio: 'only the bio' })).profile).toMatchObject({
      display_name: 'Alice A.',
      bio: 'only the bio',
    });
    expect(expectOk(await updateProfile(alice, { display_name: '' })).profile).toMatchObject({
      display_name: '',
      bio: 'only the bio',
    });
    expect(expectOk(await updateProfile(alice, {})).profile).toMatchObject({ bio: 'only the bio' });
    const bob = await signIn(service.baseUrl);
    expect(expectOk(await peerInfo(bob, alice)).peer.profile).toMatchObject({
      address: addressOf(alice),
      bio: 'only the bio',
      avatar_media_id: '',
    });
  });

  it('counts characters, not bytes, and refuses what is too long or not plain text with 400', async () => {
    const alice = await signIn(service.baseUrl);
    expectOk(await updateProfile(alice, { display_name: '😀'.repeat(64), bio: 'é'.repeat(280) }));
    for (const body of [
      { display_name: 'x'.repeat(65) },
      { bio: 'x'.repeat(281) },
      { display_name: 'two\nlines' },
      { bio: 'bell\u0007' },
      { avatar_media_id: 'm'.repeat(65) },
      { bio: 7 },
      { nickname: 'x' },
    ]) {
      expectFailure(await updateProfile(alice, body), 400, 'INVALID_ARGUMENT');
    }
    expectFailure(await api.post('/api/v1/update-profile', { bio: 'x' }), 401, 'UNAUTHORIZED');
  });

  it('refuses an avatar that is no upload (404); "" with no avatar set removes none and succeeds', async () => {
    const alice = await signIn(service.baseUrl);
    expectFailure(await updateProfile(alice, { avatar_media_id: 'media-1' }), 404, 'NOT_FOUND');
    expect(
      expectOk(await updateProfile(alice, { avatar_media_id: '' })).profile.avatar_media_id,
    ).toBe('');
  });

  it('shows a viewer that the user blocked only the address and the username', async () => {
    const [alice, bob] = await Promise.all([signIn(service.baseUrl), signIn(service.baseUrl)]);
    expectOk(await updateProfile(alice, { display_name: 'Alice', bio: 'hello' }));
    expectOk(await api.post('/api/v1/update-status', { status: 'busy' }, bearer(alice)));
    expect(expectOk(await peerInfo(bob, alice)).peer.profile).toMatchObject({
      display_name: 'Alice',
      bio: 'hello',
      status: 'busy',
    });
    expectOk(await api.post('/api/v1/block-contact', { address: bob.user.address }, bearer(alice)));
    expect(expectOk(await peerInfo(bob, alice)).peer.profile).toEqual({
      address: addressOf(alice),
      username: alice.user.username.toLowerCase(),
      display_name: '',
      bio: '',
      avatar_media_id: '',
      status: 'offline',
      status_text: '',
      last_seen_at: '',
    });
  });
});

describe('profile.changed over /ws', () => {
  it('reaches the contacts the user chats with, not strangers nor users the user blocked', async () => {
    const [alice, bob, carol, stranger] = await Promise.all([
      signIn(service.baseUrl),
      signIn(service.baseUrl),
      signIn(service.baseUrl),
      signIn(service.baseUrl),
    ]);
    for (const peer of [bob, carol]) {
      expectOk(
        await api.post(
          '/api/v1/send',
          {
            client_message_id: `p-${Date.now()}-${++names}`,
            recipient_address: peer.user.address,
            ciphertext: 'aGk=',
          },
          bearer(alice),
        ),
      );
    }
    expectOk(
      await api.post('/api/v1/block-contact', { address: carol.user.address }, bearer(alice)),
    );
    const [bobSocket, carolSocket, strangerSocket] = await Promise.all(
      [bob, carol, stranger].map((session) =>
        RealtimeClient.connect(service.baseUrl, service.baseUrl, session.accessToken),
      ),
    );
    clients.push(bobSocket!, carolSocket!, strangerSocket!);

    expectOk(await updateProfile(alice, { display_name: 'Alice Live', bio: 'new bio' }));
    const event = await bobSocket!.next('profile.changed');
    expect(event.data).toMatchObject({
      address: addressOf(alice),
      username: alice.user.username.toLowerCase(),
      display_name: 'Alice Live',
      bio: 'new bio',
      avatar_media_id: '',
    });
    const name = freshName('renamed');
    expectOk(await updateUsername(alice, name));
    expect(
      (await bobSocket!.next('profile.changed', (frame) => frame.data.username === name)).data
        .address,
    ).toBe(addressOf(alice));
    // A message sent after both changes reaches each socket after anything published before it.
    for (const [recipient, socket] of [
      [carol, carolSocket],
      [stranger, strangerSocket],
    ] as const) {
      expectOk(
        await api.post(
          '/api/v1/send',
          {
            client_message_id: `p-${Date.now()}-${++names}`,
            recipient_address: recipient.user.address,
            ciphertext: 'aGk=',
          },
          bearer(bob),
        ),
      );
      await socket!.next('message.new');
    }
    expect(carolSocket!.ofType('profile.changed')).toEqual([]);
    expect(strangerSocket!.ofType('profile.changed')).toEqual([]);
  });
});
