/**
 * Bad input on every relation route (messages.proto: edit, delete, delete-for-me, react,
 * unreact, pin, unpin, pinned; groups.proto: settings), over real HTTP, as
 * bad-input-media-groups.e2e.test.ts does for the other areas: first a table of malformed
 * requests with the exact status and code each must get; then every route is sent malformed
 * bodies and queries (not JSON, wrong JSON types for each field), which must all get the
 * failure envelope with a 4xx, never a 5xx.
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
const newId = () => `badrel-${Date.now()}-${++counter}`;
const UNKNOWN = 'A'.repeat(22);
const ABSURD = 'x'.repeat(300);
const UNREGISTERED = `0x${randomBytes(20).toString('hex')}`;

let owner: SignedIn;
let member: SignedIn;
let outsider: SignedIn;
let groupId: string;
let channelId: string;
let directId: string;
let groupMessageId: string;
let postId: string;

beforeAll(async () => {
  [owner, member, outsider] = await Promise.all([
    signIn(service.baseUrl),
    signIn(service.baseUrl),
    signIn(service.baseUrl),
  ]);
  groupId = expectOk(
    await api.post(
      '/api/v1/groups/create',
      { name: 'Bad relations', member_addresses: [member.user.address] },
      bearer(owner),
    ),
  ).group.id;
  channelId = expectOk(
    await api.post('/api/v1/channels', { name: 'Bad relations', is_public: false }, bearer(owner)),
  ).channel.id;
  const send = async (body: Record<string, unknown>) =>
    expectOk(
      await api.post(
        '/api/v1/send',
        { client_message_id: newId(), ciphertext: b64('x'), ...body },
        bearer(owner),
      ),
    ).chat_message.id as string;
  directId = await send({ recipient_address: member.user.address });
  groupMessageId = await send({ group_id: groupId });
  postId = await send({ channel_id: channelId });
});

type Who = 'owner' | 'member' | 'outsider';
/** [what, caller, route, body (a function: ids exist after beforeAll), status, code]. */
type Row = [string, Who, string, () => Record<string, unknown>, number, string];

const callers = (): Record<Who, SignedIn> => ({ owner, member, outsider });
const post = (who: Who, route: string, body: unknown): Promise<Reply> =>
  api.post(`/api/v1/messages/${route}`, body, bearer(callers()[who]));

const group = () => ({ group_id: groupId });
const direct = () => ({ peer_address: member.user.address });
const channel = () => ({ channel_id: channelId });

const ROWS: Row[] = [
  [
    'edit: no conversation',
    'owner',
    'edit',
    () => ({ message_id: directId, ciphertext: b64('x') }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'edit: two conversations',
    'owner',
    'edit',
    () => ({ ...group(), ...direct(), message_id: directId, ciphertext: b64('x') }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'edit: no message id',
    'owner',
    'edit',
    () => ({ ...direct(), ciphertext: b64('x') }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'edit: no ciphertext',
    'owner',
    'edit',
    () => ({ ...direct(), message_id: directId }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'edit: oversized ciphertext',
    'owner',
    'edit',
    () => ({
      ...direct(),
      message_id: directId,
      ciphertext: Buffer.alloc(65_537).toString('base64'),
    }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'edit: unknown id',
    'owner',
    'edit',
    () => ({ ...direct(), message_id: UNKNOWN, ciphertext: b64('x') }),
    404,
    'NOT_FOUND',
  ],
  [
    'edit: absurd id',
    'owner',
    'edit',
    () => ({ ...direct(), message_id: ABSURD, ciphertext: b64('x') }),
    404,
    'NOT_FOUND',
  ],
  [
    'edit: malformed peer',
    'owner',
    'edit',
    () => ({ peer_address: '0x12', message_id: directId, ciphertext: b64('x') }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'edit: unregistered peer',
    'owner',
    'edit',
    () => ({ peer_address: UNREGISTERED, message_id: directId, ciphertext: b64('x') }),
    404,
    'NOT_FOUND',
  ],
  [
    'edit: message of another conversation',
    'owner',
    'edit',
    () => ({ ...group(), message_id: directId, ciphertext: b64('x') }),
    404,
    'NOT_FOUND',
  ],
  [
    'edit: not a member',
    'outsider',
    'edit',
    () => ({ ...group(), message_id: groupMessageId, ciphertext: b64('x') }),
    404,
    'NOT_FOUND',
  ],
  [
    'edit: not the sender',
    'member',
    'edit',
    () => ({ ...group(), message_id: groupMessageId, ciphertext: b64('x') }),
    403,
    'FORBIDDEN',
  ],
  [
    'edit: unknown group',
    'owner',
    'edit',
    () => ({ group_id: UNKNOWN, message_id: groupMessageId, ciphertext: b64('x') }),
    404,
    'NOT_FOUND',
  ],
  [
    'edit: private channel, stranger',
    'outsider',
    'edit',
    () => ({ ...channel(), message_id: postId, ciphertext: b64('x') }),
    404,
    'NOT_FOUND',
  ],
  ['delete: no message id', 'owner', 'delete', () => direct(), 400, 'INVALID_ARGUMENT'],
  [
    'delete: unknown id',
    'owner',
    'delete',
    () => ({ ...group(), message_id: UNKNOWN }),
    404,
    'NOT_FOUND',
  ],
  [
    'delete: not the sender nor admin',
    'member',
    'delete',
    () => ({ ...group(), message_id: groupMessageId }),
    403,
    'FORBIDDEN',
  ],
  [
    'delete: not a member',
    'outsider',
    'delete',
    () => ({ ...group(), message_id: groupMessageId }),
    404,
    'NOT_FOUND',
  ],
  [
    'delete-for-me: a channel post',
    'owner',
    'delete-for-me',
    () => ({ ...channel(), message_id: postId }),
    404,
    'NOT_FOUND',
  ],
  [
    'delete-for-me: no conversation',
    'owner',
    'delete-for-me',
    () => ({ message_id: directId }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'delete-for-me: unknown id',
    'member',
    'delete-for-me',
    () => ({ ...group(), message_id: UNKNOWN }),
    404,
    'NOT_FOUND',
  ],
  [
    'react: key in a group',
    'member',
    'react',
    () => ({ ...group(), message_id: groupMessageId, key: '👍' }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'react: nothing in a group',
    'member',
    'react',
    () => ({ ...group(), message_id: groupMessageId }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'react: oversized reaction',
    'member',
    'react',
    () => ({
      ...group(),
      message_id: groupMessageId,
      ciphertext: Buffer.alloc(1025).toString('base64'),
    }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'react: ciphertext in a channel',
    'owner',
    'react',
    () => ({ ...channel(), message_id: postId, ciphertext: b64('x') }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'react: text key in a channel',
    'owner',
    'react',
    () => ({ ...channel(), message_id: postId, key: 'like' }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'react: two emoji in a channel',
    'owner',
    'react',
    () => ({ ...channel(), message_id: postId, key: '👍👍' }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'react: not a member',
    'outsider',
    'react',
    () => ({ ...group(), message_id: groupMessageId, ciphertext: b64('x') }),
    404,
    'NOT_FOUND',
  ],
  [
    'unreact: key in a direct chat',
    'member',
    'unreact',
    () => ({ ...group(), message_id: groupMessageId, key: '👍' }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'unreact: no key in a channel',
    'owner',
    'unreact',
    () => ({ ...channel(), message_id: postId }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'pin: a plain member',
    'member',
    'pin',
    () => ({ ...group(), message_id: groupMessageId }),
    403,
    'FORBIDDEN',
  ],
  [
    'pin: not a member',
    'outsider',
    'pin',
    () => ({ ...group(), message_id: groupMessageId }),
    404,
    'NOT_FOUND',
  ],
  [
    'pin: unknown id',
    'owner',
    'pin',
    () => ({ ...group(), message_id: UNKNOWN }),
    404,
    'NOT_FOUND',
  ],
  ['unpin: no message id', 'owner', 'unpin', () => group(), 400, 'INVALID_ARGUMENT'],
];

test.each(ROWS)('%s', async (_what, who, route, body, status, code) => {
  expectFailure(await post(who, route, body()), status, code);
});

it('pinned list and group settings: the documented refusals', async () => {
  const get = (who: Who, query: string) =>
    api.get(`/api/v1/messages/pinned?${query}`, bearer(callers()[who]));
  expectFailure(await get('owner', ''), 400, 'INVALID_ARGUMENT');
  expectFailure(
    await get('owner', `group_id=${groupId}&channel_id=${channelId}`),
    400,
    'INVALID_ARGUMENT',
  );
  expectFailure(await get('outsider', `group_id=${groupId}`), 404, 'NOT_FOUND');
  expectFailure(await get('outsider', `channel_id=${channelId}`), 404, 'NOT_FOUND');
  expectFailure(await get('owner', 'peer_address=zz'), 400, 'INVALID_ARGUMENT');
  expectFailure(await get('owner', `group_id=${ABSURD}`), 404, 'NOT_FOUND');
  const settings = (id: string, who: Who, body: unknown) =>
    api.post(`/api/v1/groups/${id}/settings`, body, bearer(callers()[who]));
  expectFailure(await settings(groupId, 'member', { members_can_pin: true }), 403, 'FORBIDDEN');
  expectFailure(await settings(groupId, 'outsider', { members_can_pin: true }), 404, 'NOT_FOUND');
  expectFailure(await settings(UNKNOWN, 'owner', { members_can_pin: true }), 404, 'NOT_FOUND');
  expectFailure(await settings(ABSURD, 'owner', { members_can_pin: true }), 404, 'NOT_FOUND');
  expectFailure(
    await settings(groupId, 'owner', { members_can_pin: 'yes' }),
    400,
    'INVALID_ARGUMENT',
  );
});

it('sends refuse a bad reply or bad mentions with the documented codes', async () => {
  const send = (body: Record<string, unknown>) =>
    api.post(
      '/api/v1/send',
      { client_message_id: newId(), ciphertext: b64('x'), ...body },
      bearer(owner),
    );
  expectFailure(await send({ ...group(), reply_to_message_id: UNKNOWN }), 404, 'NOT_FOUND');
  expectFailure(await send({ ...group(), reply_to_message_id: ABSURD }), 404, 'NOT_FOUND');
  expectFailure(await send({ ...group(), reply_to_message_id: directId }), 404, 'NOT_FOUND');
  expectFailure(await send({ ...group(), mentions: ['nobody'] }), 400, 'INVALID_ARGUMENT');
  expectFailure(
    await send({ ...group(), mentions: Array(51).fill(member.user.address) }),
    400,
    'INVALID_ARGUMENT',
  );
  expectFailure(await send({ ...group(), mentions: [UNREGISTERED] }), 404, 'NOT_FOUND');
  expectFailure(await send({ ...channel(), mentions: [outsider.user.address] }), 404, 'NOT_FOUND');
  expectFailure(
    await send({ ...channel(), reply_to_message_id: groupMessageId }),
    404,
    'NOT_FOUND',
  );
  expectFailure(
    await send({ recipient_address: member.user.address, mentions: [member.user.address] }),
    400,
    'INVALID_ARGUMENT',
  );
});

const ROUTES: [string, () => string][] = [
  ['POST', () => '/api/v1/messages/edit'],
  ['POST', () => '/api/v1/messages/delete'],
  ['POST', () => '/api/v1/messages/delete-for-me'],
  ['POST', () => '/api/v1/messages/react'],
  ['POST', () => '/api/v1/messages/unreact'],
  ['POST', () => '/api/v1/messages/pin'],
  ['POST', () => '/api/v1/messages/unpin'],
  ['POST', () => `/api/v1/groups/${groupId}/settings`],
  ['POST', () => '/api/v1/send'],
  ['POST', () => `/api/v1/channels/${channelId}/posts`],
];
const FIELDS = [
  'peer_address',
  'group_id',
  'channel_id',
  'message_id',
  'ciphertext',
  'key',
  'members_can_pin',
  'reply_to_message_id',
  'mentions',
];
const WRONG_VALUES: unknown[] = [
  { nested: true },
  [1, 2],
  1e308,
  -1,
  true,
  'x'.repeat(70_000),
  null,
];
const RAW_BODIES = ['not json', '{"message_id": ', '[]', 'null', '"text"', '{"key": "\u0000"}'];

test('no malformed body or query on any relation route gets anything but the envelope with a 4xx', async () => {
  const sweep = new EnvelopeSweep();
  for (const [method, path] of ROUTES)
    await sweep.bodies(
      `${method} ${path()}`,
      {
        url: api.url(path()),
        method,
        headers: { 'content-type': 'application/json', ...bearer(owner) },
      },
      {
        rawBodies: RAW_BODIES,
        fields: FIELDS,
        wrongValues: WRONG_VALUES,
        base: () => ({ group_id: groupId, message_id: groupMessageId }),
      },
    );
  for (const query of [
    '',
    'peer_address=zz',
    `group_id=${ABSURD}`,
    'channel_id=%00%ff',
    `group_id=${groupId}&peer_address=${member.user.address}`,
    'group_id=' + 'z'.repeat(5000),
  ])
    await sweep.check(`GET pinned?${query}`, () =>
      fetch(api.url(`/api/v1/messages/pinned?${query}`), { headers: bearer(owner) }),
    );
  expect(sweep.failures).toEqual([]);
}, 300_000);
