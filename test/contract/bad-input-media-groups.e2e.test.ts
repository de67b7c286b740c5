/**
 * Bad input on every route of media, groups, channels, stories, polls and stickers, over real
 * HTTP: first a table of malformed requests with the exact status and code each must get
 * (unknown and absurd ids, malformed and unregistered addresses, empty and oversized names,
 * wrong types, non-members, a member publishing to a channel); then every route is sent a set
 * of malformed bodies and queries (not JSON, wrong JSON types for each field), which must all
 * get the failure envelope with a 4xx, never a 5xx.
 */
import { randomBytes } from 'node:crypto';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { expectFailure, expectOk } from '../support/session-api.js';
import type { Reply } from '../support/session-api.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import { EnvelopeSweep } from '../support/malformed-requests.js';

const { service, api } = serviceForThisFile({ RATE_LIMITS_ENABLED: 'false' });

const b64 = (text: string) => Buffer.from(text).toString('base64');
let counter = 0;
const newId = () => `bad-${Date.now()}-${++counter}`;

/** An id of the right shape that names nothing, an absurdly long one, a malformed and an unregistered address. */
const UNKNOWN = 'A'.repeat(22);
const ABSURD = 'x'.repeat(300);
const MALFORMED_ADDRESS = '0x1234';
const UNREGISTERED = `0x${randomBytes(20).toString('hex')}`;

let owner: SignedIn;
let member: SignedIn;
let outsider: SignedIn;
let groupId: string;
let channelId: string;
let storyId: string;
let pollId: string;
let stickerId: string;

beforeAll(async () => {
  [owner, member, outsider] = await Promise.all([
    signIn(service.baseUrl),
    signIn(service.baseUrl),
    signIn(service.baseUrl),
  ]);
  groupId = expectOk(
    await api.post(
      '/api/v1/groups/create',
      { name: 'Bad input', member_addresses: [member.user.address] },
      bearer(owner),
    ),
  ).group.id;
  channelId = expectOk(
    await api.post('/api/v1/channels', { name: 'Bad input', is_public: false }, bearer(owner)),
  ).channel.id;
  expectOk(await api.post(`/api/v1/channels/${channelId}/subscribe`, {}, bearer(member)));
  storyId = expectOk(
    await api.post(
      '/api/v1/stories',
      { ciphertext: b64('story'), audience: 'selected', audience_addresses: [member.user.address] },
      bearer(owner),
    ),
  ).story.id;
  pollId = expectOk(
    await api.post(
      '/api/v1/polls',
      { question: 'Q?', options: ['a', 'b'], recipient_address: member.user.address },
      bearer(owner),
    ),
  ).poll.id;
  stickerId = expectOk(await api.get('/api/v1/stickers/packs', bearer(owner))).packs[0].cover.id;
});

type Who = 'owner' | 'member' | 'outsider';
/** [what, caller, method, path, body, status, code]; paths (and bodies naming ids) are functions, as the ids exist only after beforeAll. */
type Row = [string, Who, string, () => string, unknown, number, string];

const callers = (): Record<Who, SignedIn> => ({ owner, member, outsider });
const call = (who: Who, method: string, path: string, body?: unknown): Promise<Reply> =>
  api.call(method, path, {
    ...(body === undefined ? {} : { body }),
    headers: bearer(callers()[who]),
  });

const ROWS: Row[] = [
  // Media
  [
    'upload: unknown kind',
    'owner',
    'POST',
    () => '/api/v1/upload-media',
    { kind: 'song', content_type: 'application/octet-stream', data: b64('x') },
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'upload: kind of a wrong type',
    'owner',
    'POST',
    () => '/api/v1/upload-media',
    { kind: 7, content_type: 'application/octet-stream', data: b64('x') },
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'upload: data not base64',
    'owner',
    'POST',
    () => '/api/v1/upload-media',
    { kind: 'file', content_type: 'application/octet-stream', data: '***' },
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'upload: empty data',
    'owner',
    'POST',
    () => '/api/v1/upload-media',
    { kind: 'file', content_type: 'application/octet-stream', data: '' },
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'download: unknown id',
    'owner',
    'GET',
    () => `/api/v1/media/${UNKNOWN}`,
    undefined,
    404,
    'NOT_FOUND',
  ],
  [
    'download: absurd id',
    'owner',
    'GET',
    () => `/api/v1/media/${ABSURD}`,
    undefined,
    404,
    'NOT_FOUND',
  ],
  [
    'avatar: malformed address',
    'outsider',
    'GET',
    () => `/api/v1/avatar/${MALFORMED_ADDRESS}`,
    undefined,
    404,
    'NOT_FOUND',
  ],
  [
    'avatar: unregistered address',
    'outsider',
    'GET',
    () => `/api/v1/media/avatar/${UNREGISTERED}`,
    undefined,
    404,
    'NOT_FOUND',
  ],
  // Groups
  [
    'create group: empty name',
    'owner',
    'POST',
    () => '/api/v1/groups/create',
    { name: '   ' },
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'create group: name of 65 characters',
    'owner',
    'POST',
    () => '/api/v1/groups/create',
    { name: 'n'.repeat(65) },
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'create group: name of a wrong type',
    'owner',
    'POST',
    () => '/api/v1/groups/create',
    { name: ['a'] },
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'create group: malformed member address',
    'owner',
    'POST',
    () => '/api/v1/groups/create',
    { name: 'g', member_addresses: [MALFORMED_ADDRESS] },
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'create group: unregistered member',
    'owner',
    'POST',
    () => '/api/v1/groups/create',
    { name: 'g', member_addresses: [UNREGISTERED] },
    404,
    'NOT_FOUND',
  ],
  [
    'create group: unknown avatar',
    'owner',
    'POST',
    () => '/api/v1/groups/create',
    { name: 'g', avatar_media_id: UNKNOWN },
    404,
    'NOT_FOUND',
  ],
  [
    'get group: unknown id',
    'owner',
    'GET',
    () => `/api/v1/groups/${UNKNOWN}`,
    undefined,
    404,
    'NOT_FOUND',
  ],
  [
    'get group: absurd id',
    'owner',
    'GET',
    () => `/api/v1/groups/${ABSURD}`,
    undefined,
    404,
    'NOT_FOUND',
  ],
  [
    'get group: non-member',
    'outsider',
    'GET',
    () => `/api/v1/groups/${groupId}`,
    undefined,
    404,
    'NOT_FOUND',
  ],
  [
    'list groups: page size of a wrong type',
    'owner',
    'GET',
    () => '/api/v1/groups?page_size=many',
    undefined,
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'list groups: malformed cursor',
    'owner',
    'GET',
    () => '/api/v1/groups?cursor=zz',
    undefined,
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'join: unknown code',
    'outsider',
    'POST',
    () => `/api/v1/groups/join/${UNKNOWN}`,
    {},
    404,
    'NOT_FOUND',
  ],
  [
    'join: absurd code',
    'outsider',
    'POST',
    () => `/api/v1/groups/join/${ABSURD}`,
    {},
    404,
    'NOT_FOUND',
  ],
  [
    'leave: non-member',
    'outsider',
    'POST',
    () => `/api/v1/groups/${groupId}/leave`,
    {},
    404,
    'NOT_FOUND',
  ],
  [
    'invite: non-member',
    'outsider',
    'POST',
    () => `/api/v1/groups/${groupId}/invites`,
    {},
    404,
    'NOT_FOUND',
  ],
  [
    'invite: negative use count',
    'owner',
    'POST',
    () => `/api/v1/groups/${groupId}/invites`,
    { max_uses: -1 },
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'invite: use count of a wrong type',
    'owner',
    'POST',
    () => `/api/v1/groups/${groupId}/invites`,
    { max_uses: 'ten' },
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'revoke: unknown code',
    'owner',
    'DELETE',
    () => `/api/v1/groups/${groupId}/invites/${UNKNOWN}`,
    undefined,
    404,
    'NOT_FOUND',
  ],
  [
    'rename: empty name',
    'owner',
    'POST',
    () => `/api/v1/groups/${groupId}/rename`,
    { name: '' },
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'rename: oversized name',
    'owner',
    'POST',
    () => `/api/v1/groups/${groupId}/rename`,
    { name: 'n'.repeat(65) },
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'rename: non-member',
    'outsider',
    'POST',
    () => `/api/v1/groups/${groupId}/rename`,
    { name: 'x' },
    404,
    'NOT_FOUND',
  ],
  [
    'promote: malformed address',
    'owner',
    'POST',
    () => `/api/v1/groups/${groupId}/members/${MALFORMED_ADDRESS}/promote`,
    {},
    404,
    'NOT_FOUND',
  ],
  [
    'promote: non-member target',
    'owner',
    'POST',
    () => `/api/v1/groups/${groupId}/members/${UNREGISTERED}/promote`,
    {},
    404,
    'NOT_FOUND',
  ],
  [
    'promote: by a member',
    'member',
    'POST',
    () => `/api/v1/groups/${groupId}/members/${owner.user.address}/promote`,
    {},
    403,
    'FORBIDDEN',
  ],
  [
    'demote: unknown group',
    'owner',
    'POST',
    () => `/api/v1/groups/${UNKNOWN}/members/${UNREGISTERED}/demote`,
    {},
    404,
    'NOT_FOUND',
  ],
  [
    'remove: malformed address',
    'owner',
    'DELETE',
    () => `/api/v1/groups/${groupId}/members/${MALFORMED_ADDRESS}`,
    undefined,
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'send to a group: non-member',
    'outsider',
    'POST',
    () => '/api/v1/send',
    () => ({ client_message_id: newId(), group_id: groupId, ciphertext: b64('x') }),
    404,
    'NOT_FOUND',
  ],
  [
    'send to a group: unknown group',
    'owner',
    'POST',
    () => '/api/v1/send',
    { client_message_id: newId(), group_id: UNKNOWN, ciphertext: b64('x') },
    404,
    'NOT_FOUND',
  ],
  // Channels
  [
    'create channel: empty name',
    'owner',
    'POST',
    () => '/api/v1/channels',
    { name: '' },
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'create channel: oversized name',
    'owner',
    'POST',
    () => '/api/v1/channels',
    { name: 'n'.repeat(1000) },
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'create channel: is_public of a wrong type',
    'owner',
    'POST',
    () => '/api/v1/channels',
    { name: 'c', is_public: 'yes' },
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'create channel: malformed admin address',
    'owner',
    'POST',
    () => '/api/v1/channels',
    { name: 'c', admin_addresses: [MALFORMED_ADDRESS] },
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'get channel: unknown id',
    'owner',
    'GET',
    () => `/api/v1/channels/${UNKNOWN}`,
    undefined,
    404,
    'NOT_FOUND',
  ],
  [
    'get channel: absurd id',
    'owner',
    'GET',
    () => `/api/v1/channels/${ABSURD}`,
    undefined,
    404,
    'NOT_FOUND',
  ],
  [
    'get channel: private, not followed',
    'outsider',
    'GET',
    () => `/api/v1/channels/${channelId}`,
    undefined,
    404,
    'NOT_FOUND',
  ],
  [
    'subscribe: unknown channel',
    'outsider',
    'POST',
    () => `/api/v1/channels/${UNKNOWN}/subscribe`,
    {},
    404,
    'NOT_FOUND',
  ],
  [
    'unsubscribe: unknown channel',
    'outsider',
    'POST',
    () => `/api/v1/channels/${UNKNOWN}/unsubscribe`,
    {},
    404,
    'NOT_FOUND',
  ],
  [
    'publish: by a subscriber',
    'member',
    'POST',
    () => `/api/v1/channels/${channelId}/posts`,
    { client_message_id: newId(), ciphertext: b64('x') },
    403,
    'FORBIDDEN',
  ],
  [
    'publish: by an outsider of a private channel',
    'outsider',
    'POST',
    () => `/api/v1/channels/${channelId}/posts`,
    { client_message_id: newId(), ciphertext: b64('x') },
    404,
    'NOT_FOUND',
  ],
  [
    'publish: no client_message_id',
    'owner',
    'POST',
    () => `/api/v1/channels/${channelId}/posts`,
    { ciphertext: b64('x') },
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'send to a channel: by a subscriber',
    'member',
    'POST',
    () => '/api/v1/send',
    () => ({ client_message_id: newId(), channel_id: channelId, ciphertext: b64('x') }),
    403,
    'FORBIDDEN',
  ],
  [
    'list posts: malformed cursor',
    'member',
    'GET',
    () => `/api/v1/channels/${channelId}/posts?cursor=zz`,
    undefined,
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'edit channel: by a subscriber',
    'member',
    'PATCH',
    () => `/api/v1/channels/${channelId}`,
    { name: 'mine' },
    403,
    'FORBIDDEN',
  ],
  [
    'edit channel: oversized name',
    'owner',
    'PATCH',
    () => `/api/v1/channels/${channelId}`,
    { name: 'n'.repeat(1000) },
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'delete channel: by a subscriber',
    'member',
    'DELETE',
    () => `/api/v1/channels/${channelId}`,
    undefined,
    403,
    'FORBIDDEN',
  ],
  [
    'add admin: malformed address',
    'owner',
    'POST',
    () => `/api/v1/channels/${channelId}/admins/${MALFORMED_ADDRESS}`,
    {},
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'add admin: unregistered user',
    'owner',
    'POST',
    () => `/api/v1/channels/${channelId}/admins/${UNREGISTERED}`,
    {},
    404,
    'NOT_FOUND',
  ],
  [
    'remove admin: by a subscriber',
    'member',
    'DELETE',
    () => `/api/v1/channels/${channelId}/admins/${owner.user.address}`,
    undefined,
    403,
    'FORBIDDEN',
  ],
  // Stories
  [
    'view story: unknown id',
    'member',
    'POST',
    () => `/api/v1/stories/${UNKNOWN}/view`,
    {},
    404,
    'NOT_FOUND',
  ],
  [
    'view story: not in its audience',
    'outsider',
    'POST',
    () => `/api/v1/stories/${storyId}/view`,
    {},
    404,
    'NOT_FOUND',
  ],
  [
    'story viewers: not the owner',
    'member',
    'GET',
    () => `/api/v1/stories/${storyId}/views`,
    undefined,
    403,
    'FORBIDDEN',
  ],
  [
    'delete story: absurd id',
    'owner',
    'DELETE',
    () => `/api/v1/stories/${ABSURD}`,
    undefined,
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'create story: malformed audience address',
    'owner',
    'POST',
    () => '/api/v1/stories',
    { ciphertext: b64('x'), audience: 'selected', audience_addresses: [MALFORMED_ADDRESS] },
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'create story: someone else’s upload',
    'member',
    'POST',
    () => '/api/v1/stories',
    { media_id: UNKNOWN },
    404,
    'NOT_FOUND',
  ],
  // Polls
  [
    'create poll: both targets',
    'owner',
    'POST',
    () => '/api/v1/polls',
    () => ({
      question: 'Q',
      options: ['a', 'b'],
      recipient_address: member.user.address,
      channel_id: channelId,
    }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'create poll: malformed recipient',
    'owner',
    'POST',
    () => '/api/v1/polls',
    { question: 'Q', options: ['a', 'b'], recipient_address: MALFORMED_ADDRESS },
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'create poll: options of a wrong type',
    'owner',
    'POST',
    () => '/api/v1/polls',
    { question: 'Q', options: 'a,b' },
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'create poll: in a channel, by a subscriber',
    'member',
    'POST',
    () => '/api/v1/polls',
    () => ({ question: 'Q', options: ['a', 'b'], channel_id: channelId }),
    403,
    'FORBIDDEN',
  ],
  [
    'get poll: unknown id',
    'member',
    'GET',
    () => `/api/v1/polls/${UNKNOWN}`,
    undefined,
    404,
    'NOT_FOUND',
  ],
  [
    'get poll: outsider',
    'outsider',
    'GET',
    () => `/api/v1/polls/${pollId}`,
    undefined,
    404,
    'NOT_FOUND',
  ],
  [
    'vote: outsider',
    'outsider',
    'POST',
    () => '/api/v1/polls/vote',
    () => ({ poll_id: pollId, option_ids: ['x'] }),
    404,
    'NOT_FOUND',
  ],
  [
    'vote: no options',
    'member',
    'POST',
    () => '/api/v1/polls/vote',
    () => ({ poll_id: pollId, option_ids: [] }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'list polls: malformed peer',
    'member',
    'GET',
    () => `/api/v1/polls?peer_address=${MALFORMED_ADDRESS}`,
    undefined,
    400,
    'INVALID_ARGUMENT',
  ],
  // Stickers
  [
    'sticker pack: unknown',
    'member',
    'GET',
    () => `/api/v1/stickers/packs/${UNKNOWN}`,
    undefined,
    404,
    'NOT_FOUND',
  ],
  [
    'sticker image: unknown',
    'member',
    'GET',
    () => `/api/v1/stickers/${UNKNOWN}/image`,
    undefined,
    404,
    'NOT_FOUND',
  ],
  [
    'send sticker: unknown sticker',
    'owner',
    'POST',
    () => '/api/v1/stickers/send',
    () => ({
      client_message_id: newId(),
      recipient_address: member.user.address,
      sticker_id: UNKNOWN,
    }),
    404,
    'NOT_FOUND',
  ],
  [
    'send sticker: no target',
    'owner',
    'POST',
    () => '/api/v1/stickers/send',
    () => ({ client_message_id: newId(), sticker_id: stickerId }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'send sticker: to a group, non-member',
    'outsider',
    'POST',
    () => '/api/v1/stickers/send',
    () => ({ client_message_id: newId(), group_id: groupId, sticker_id: stickerId }),
    404,
    'NOT_FOUND',
  ],
];

for (const [what, who, method, path, body, status, code] of ROWS) {
  test(`${what} (${method}, as ${who}): ${status} ${code}`, async () => {
    expectFailure(
      await call(who, method, path(), typeof body === 'function' ? body() : body),
      status,
      code,
    );
  });
}

/** Every route of the areas, with ids that exist (so that the body is what is wrong). */
const ROUTES: [string, () => string][] = [
  ['POST', () => '/api/v1/upload-media'],
  ['POST', () => '/api/v1/groups/create'],
  ['POST', () => `/api/v1/groups/join/${UNKNOWN}`],
  ['POST', () => `/api/v1/groups/${groupId}/invites`],
  ['POST', () => `/api/v1/groups/${groupId}/rename`],
  ['POST', () => `/api/v1/groups/${groupId}/members/${member.user.address}/promote`],
  ['POST', () => `/api/v1/groups/${groupId}/members/${member.user.address}/demote`],
  ['POST', () => '/api/v1/channels'],
  ['POST', () => `/api/v1/channels/${channelId}/posts`],
  ['PATCH', () => `/api/v1/channels/${channelId}`],
  ['POST', () => `/api/v1/channels/${channelId}/admins/${member.user.address}`],
  ['POST', () => '/api/v1/stories'],
  ['POST', () => `/api/v1/stories/${storyId}/view`],
  ['POST', () => '/api/v1/polls'],
  ['POST', () => '/api/v1/polls/vote'],
  ['POST', () => '/api/v1/stickers/send'],
  ['POST', () => '/api/v1/send'],
];

/** Malformed bodies: not JSON, not an object, and each field any route has with a value of the wrong type. */
const FIELDS = [
  'name',
  'description',
  'kind',
  'content_type',
  'data',
  'sha256',
  'member_addresses',
  'avatar_media_id',
  'max_uses',
  'expires_in_seconds',
  'is_public',
  'admin_addresses',
  'client_message_id',
  'ciphertext',
  'media_id',
  'duration_ms',
  'clear_description',
  'caption',
  'ttl_seconds',
  'audience',
  'audience_addresses',
  'question',
  'options',
  'allows_multiple',
  'expires_at',
  'channel_id',
  'recipient_address',
  'group_id',
  'poll_id',
  'option_ids',
  'sticker_id',
];
const WRONG_VALUES: unknown[] = [{ nested: true }, [1, 2], 1e308, -1, true, 'x'.repeat(70_000)];
const RAW_BODIES = ['not json', '{"name": ', '[]', 'null', '"text"', '{"name": "\u0000"}'];

test('no malformed body on any route gets anything but the failure envelope with a 4xx', async () => {
  const sweep = new EnvelopeSweep();
  for (const [method, path] of ROUTES)
    await sweep.bodies(
      `${method} ${path()}`,
      {
        url: api.url(path()),
        method,
        headers: { 'content-type': 'application/json', ...bearer(owner) },
      },
      { rawBodies: RAW_BODIES, fields: FIELDS, wrongValues: WRONG_VALUES, base: () => ({}) },
    );
  for (const query of [
    'page_size=-5',
    'page_size=abc',
    'page_size=99999',
    'cursor=%00%ff',
    'cursor=' + 'z'.repeat(5000),
    'scope=nope',
    'peer_address=zz',
    'owner_address=0x',
  ]) {
    for (const path of [
      '/api/v1/groups',
      '/api/v1/channels',
      `/api/v1/channels/${channelId}/posts`,
      '/api/v1/stories',
      `/api/v1/stories/${storyId}/views`,
      '/api/v1/polls',
      '/api/v1/stickers/packs',
    ]) {
      await sweep.check(`GET ${path}?${query}`, () =>
        fetch(api.url(`${path}?${query}`), { headers: bearer(owner) }),
      );
    }
  }
  expect(sweep.failures).toEqual([]);
}, 300_000);
