/**
 * The bounds of relations, with the windows shrunk by their settings (MESSAGE_EDIT_WINDOW,
 * MESSAGE_DELETE_WINDOW at 1 s) rather than by moving clocks: past its window the sender can
 * neither edit (403 EDIT_WINDOW_PASSED) nor delete for everyone (403 DELETE_WINDOW_PASSED),
 * while a group's admin still deletes any message and a channel's owner any post; a message is
 * edited at most 20 times (403 EDIT_LIMIT_REACHED); and the relation routes have per-endpoint
 * buckets that answer 429 with the spec's headers (a bucket of the RPC overridden small here).
 */
import { serviceForThisFile } from '../support/service-for-tests.js';
import { expectFailure, expectOk, sleep } from '../support/session-api.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import { RelationCalls, b64, newClientId } from './relations-support.js';
import type { Where } from './relations-support.js';

const { service, api } = serviceForThisFile({
  RATE_LIMITS_ENABLED: 'true',
  MESSAGE_EDIT_WINDOW: '1s',
  MESSAGE_DELETE_WINDOW: '1s',
  RATE_LIMIT_OVERRIDES: JSON.stringify({
    ip: { limit: 10_000, burst: 10_000 },
    user: { limit: 10_000, burst: 10_000 },
    auth: { limit: 100, burst: 100 },
    'MessagesService.PinMessage': { limit: 2, burst: 2 },
    // The spec-style bucket of EditMessage (30 a minute, burst 10) would stop 20 edits in a row.
    'MessagesService.EditMessage': { limit: 100, burst: 100 },
  }),
});
const calls = new RelationCalls(() => api);
let alice: SignedIn;
let bob: SignedIn;

beforeAll(async () => {
  [alice, bob] = await Promise.all([signIn(service.baseUrl), signIn(service.baseUrl)]);
});

it('past the windows the sender may neither edit nor delete; within them it may', async () => {
  const withBob: Where = { peer_address: bob.user.address };
  const early = await calls.sent(alice, withBob, 'early');
  const late = await calls.sent(alice, withBob, 'late');
  expectOk(await calls.edit(alice, withBob, early.id, 'early, edited'));
  await sleep(1100);
  expectFailure(await calls.edit(alice, withBob, late.id, 'x'), 403, 'EDIT_WINDOW_PASSED');
  expectFailure(
    await calls.deleteForEveryone(alice, withBob, late.id),
    403,
    'DELETE_WINDOW_PASSED',
  );
  // Delete for me has no window.
  expectOk(await calls.deleteForMe(alice, withBob, late.id));
});

it('a group admin deletes any message past the window; a channel owner any post', async () => {
  const groupId = expectOk(
    await api.post(
      '/api/v1/groups/create',
      { name: 'Windows', member_addresses: [bob.user.address] },
      bearer(alice),
    ),
  ).group.id;
  const group: Where = { group_id: groupId };
  const old = await calls.sent(bob, group, 'old');
  const channelId = expectOk(
    await api.post('/api/v1/channels', { name: 'Windows', is_public: true }, bearer(alice)),
  ).channel.id;
  const post = expectOk(
    await api.post(
      `/api/v1/channels/${channelId}/posts`,
      { client_message_id: newClientId(), ciphertext: b64('post') },
      bearer(alice),
    ),
  ).chat_message;
  await sleep(1100);
  expectFailure(await calls.deleteForEveryone(bob, group, old.id), 403, 'DELETE_WINDOW_PASSED');
  expect(
    expectOk(await calls.deleteForEveryone(alice, group, old.id)).chat_message.deleted_by,
  ).toBe('admin');
  const channel: Where = { channel_id: channelId };
  expectFailure(await calls.edit(alice, channel, post.id, 'x'), 403, 'EDIT_WINDOW_PASSED');
  expect(
    expectOk(await calls.deleteForEveryone(alice, channel, post.id)).chat_message.deleted_by,
  ).toBe('admin');
});

it('a message is edited at most 20 times', async () => {
  const withBob: Where = { peer_address: bob.user.address };
  const sent = await calls.sent(alice, withBob, 'v0');
  for (let i = 1; i <= 20; i++) expectOk(await calls.edit(alice, withBob, sent.id, `v${i}`));
  expectFailure(await calls.edit(alice, withBob, sent.id, 'v21'), 403, 'EDIT_LIMIT_REACHED');
});

it('the relation routes have per-endpoint buckets: 429 with Retry-After past them', async () => {
  const withBob: Where = { peer_address: bob.user.address };
  const ids = [];
  for (let i = 0; i < 3; i++) ids.push((await calls.sent(alice, withBob, `p${i}`)).id as string);
  expectOk(await calls.pin(alice, withBob, ids[0]!));
  expectOk(await calls.pin(alice, withBob, ids[1]!));
  const refused = await calls.pin(alice, withBob, ids[2]!);
  expect(refused.status).toBe(429);
  expect(refused.body).toMatchObject({ success: false });
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(refused.headers.get('x-ratelimit-limit')).toBe('2');
});
