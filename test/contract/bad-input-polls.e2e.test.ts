/**
 * Bad input on the poll fields issue #30 added or changed (polls.proto: CreatePoll's targets
 * with `group_id`; messages.proto: SendMessage's `poll_id`), over real HTTP, as
 * bad-input-relations.e2e.test.ts does for relations: first a table of malformed requests with
 * the exact status and code each must get; then both routes are sent malformed bodies (not
 * JSON, wrong JSON types for each field), which must all get the failure envelope with a 4xx
 * (or succeed), never a 5xx.
 */
import { randomBytes } from 'node:crypto';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { expectFailure, expectOk } from '../support/session-api.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import { EnvelopeSweep } from '../support/malformed-requests.js';

const { service, api } = serviceForThisFile({ RATE_LIMITS_ENABLED: 'false' });

const b64 = (text: string) => Buffer.from(text).toString('base64');
let counter = 0;
const newId = () => `badpoll-${Date.now()}-${++counter}`;
const LONG_ID = 'x'.repeat(65);
const UNKNOWN = 'A'.repeat(24);
const UNREGISTERED = `0x${randomBytes(20).toString('hex')}`;
const POLL = { question: 'Q?', options: ['a', 'b'] };

let owner: SignedIn;
let member: SignedIn;
let outsider: SignedIn;
let groupId: string;
let foreignGroupId: string;
let channelId: string;
let pollId: string;
let sharedPollId: string;
let messageId: string;

beforeAll(async () => {
  [owner, member, outsider] = await Promise.all([
    signIn(service.baseUrl),
    signIn(service.baseUrl),
    signIn(service.baseUrl),
  ]);
  const group = async (by: SignedIn, members: SignedIn[]) =>
    expectOk(
      await api.post(
        '/api/v1/groups/create',
        { name: 'Bad polls', member_addresses: members.map((user) => user.user.address) },
        bearer(by),
      ),
    ).group.id as string;
  groupId = await group(owner, [member]);
  foreignGroupId = await group(outsider, []);
  channelId = expectOk(
    await api.post('/api/v1/channels', { name: 'Bad polls', is_public: false }, bearer(owner)),
  ).channel.id;
  pollId = expectOk(await api.post('/api/v1/polls', POLL, bearer(owner))).poll.id;
  sharedPollId = expectOk(
    await api.post('/api/v1/polls', { ...POLL, group_id: groupId }, bearer(owner)),
  ).poll.id;
  messageId = expectOk(
    await api.post(
      '/api/v1/send',
      { client_message_id: newId(), group_id: groupId, ciphertext: b64('x') },
      bearer(owner),
    ),
  ).chat_message.id;
});

type Who = 'owner' | 'member' | 'outsider';
/** [what, caller, route, body (a function: ids exist after beforeAll), status, code]. */
type Row = [string, Who, 'polls' | 'send', () => Record<string, unknown>, number, string];

const callers = (): Record<Who, SignedIn> => ({ owner, member, outsider });
/** A send of the bare poll to the group, with `fields` over it. */
const pollSend = (fields: Record<string, unknown> = {}) => ({
  client_message_id: newId(),
  poll_id: pollId,
  group_id: groupId,
  ...fields,
});

const ROWS: Row[] = [
  [
    'create: channel and group',
    'owner',
    'polls',
    () => ({ ...POLL, channel_id: channelId, group_id: groupId }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'create: group and recipient',
    'owner',
    'polls',
    () => ({ ...POLL, group_id: groupId, recipient_address: member.user.address }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'create: all three targets',
    'owner',
    'polls',
    () => ({
      ...POLL,
      channel_id: channelId,
      group_id: groupId,
      recipient_address: member.user.address,
    }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'create: group_id over 64 characters',
    'owner',
    'polls',
    () => ({ ...POLL, group_id: LONG_ID }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'create: channel_id over 64 characters',
    'owner',
    'polls',
    () => ({ ...POLL, channel_id: LONG_ID }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'create: group_id of a number',
    'owner',
    'polls',
    () => ({ ...POLL, group_id: 42 }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'create: unknown group',
    'owner',
    'polls',
    () => ({ ...POLL, group_id: UNKNOWN }),
    404,
    'NOT_FOUND',
  ],
  [
    'create: a group the caller is not in',
    'owner',
    'polls',
    () => ({ ...POLL, group_id: foreignGroupId }),
    404,
    'NOT_FOUND',
  ],
  [
    'create: the bare poll with bad options',
    'owner',
    'polls',
    () => ({ question: 'Q?', options: ['a'] }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'send: poll_id over 64 characters',
    'owner',
    'send',
    () => pollSend({ poll_id: LONG_ID }),
    400,
    'INVALID_ARGUMENT',
  ],
  ['send: unknown poll', 'owner', 'send', () => pollSend({ poll_id: UNKNOWN }), 404, 'NOT_FOUND'],
  [
    'send: a poll the caller cannot see',
    'outsider',
    'send',
    () => pollSend({ group_id: foreignGroupId }),
    404,
    'NOT_FOUND',
  ],
  [
    'send: a poll the caller sees but did not create',
    'member',
    'send',
    () => pollSend({ poll_id: sharedPollId }),
    403,
    'FORBIDDEN',
  ],
  [
    'send: poll_id of a number',
    'owner',
    'send',
    () => pollSend({ poll_id: 7 }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'send: with a ciphertext',
    'owner',
    'send',
    () => pollSend({ ciphertext: b64('x') }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'send: with a media_id',
    'owner',
    'send',
    () => pollSend({ media_id: 'm' }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'send: view_once',
    'owner',
    'send',
    () => pollSend({ group_id: '', recipient_address: member.user.address, view_once: true }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'send: as a reply',
    'owner',
    'send',
    () => pollSend({ reply_to_message_id: messageId }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'send: with mentions',
    'owner',
    'send',
    () => pollSend({ mentions: [member.user.address] }),
    400,
    'INVALID_ARGUMENT',
  ],
  ['send: kind text', 'owner', 'send', () => pollSend({ kind: 'text' }), 400, 'INVALID_ARGUMENT'],
  ['send: no target', 'owner', 'send', () => pollSend({ group_id: '' }), 400, 'INVALID_ARGUMENT'],
  [
    'send: two targets',
    'owner',
    'send',
    () => pollSend({ channel_id: channelId }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'send: no client_message_id',
    'owner',
    'send',
    () => pollSend({ client_message_id: '' }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'send: a client_message_id with a colon (channel)',
    'owner',
    'send',
    () => pollSend({ group_id: '', channel_id: channelId, client_message_id: 'poll:x' }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'send: group_id over 64 characters',
    'owner',
    'send',
    () => pollSend({ group_id: LONG_ID }),
    400,
    'INVALID_ARGUMENT',
  ],
  ['send: unknown group', 'owner', 'send', () => pollSend({ group_id: UNKNOWN }), 404, 'NOT_FOUND'],
  [
    'send: a group the caller is not in',
    'owner',
    'send',
    () => pollSend({ group_id: foreignGroupId }),
    404,
    'NOT_FOUND',
  ],
  [
    'send: unknown channel',
    'owner',
    'send',
    () => pollSend({ group_id: '', channel_id: UNKNOWN }),
    404,
    'NOT_FOUND',
  ],
  [
    'send: malformed recipient',
    'owner',
    'send',
    () => pollSend({ group_id: '', recipient_address: '0x12' }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'send: unregistered recipient',
    'owner',
    'send',
    () => pollSend({ group_id: '', recipient_address: UNREGISTERED }),
    404,
    'NOT_FOUND',
  ],
  [
    'send: the caller as recipient',
    'owner',
    'send',
    () => pollSend({ group_id: '', recipient_address: owner.user.address }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'send: again where it already is',
    'owner',
    'send',
    () => pollSend({ poll_id: sharedPollId }),
    409,
    'CONFLICT',
  ],
];

test.each(ROWS)('%s (as %s)', async (_, who, route, body, status, code) => {
  const reply = await api.post(`/api/v1/${route}`, body(), bearer(callers()[who]));
  expectFailure(reply, status, code);
});

test('nothing of a refused send was written: the group shows the bare poll nowhere', async () => {
  const history = expectOk(await api.get(`/api/v1/messages?group_id=${groupId}`, bearer(member)));
  expect(JSON.stringify(history)).not.toContain(pollId);
  expectFailure(await api.get(`/api/v1/polls/${pollId}`, bearer(member)), 404, 'NOT_FOUND');
});

const FIELDS = [
  'question',
  'options',
  'channel_id',
  'group_id',
  'recipient_address',
  'poll_id',
  'client_message_id',
  'kind',
];
const WRONG_VALUES: unknown[] = [
  { nested: true },
  [1, 2],
  1e308,
  -1,
  true,
  'x'.repeat(70_000),
  null,
  '\u0000',
];
const RAW_BODIES = ['not json', '{"poll_id": ', '[]', 'null', '"text"', '{"group_id": "\u0000"}'];

test('no malformed body on the poll routes gets anything but the envelope with a 4xx', async () => {
  const sweep = new EnvelopeSweep();
  const bases: [string, () => Record<string, unknown>][] = [
    ['/api/v1/polls', () => ({ ...POLL, group_id: groupId })],
    ['/api/v1/send', () => pollSend()],
  ];
  for (const [path, base] of bases)
    await sweep.bodies(
      path,
      {
        url: api.url(path),
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(owner) },
      },
      { rawBodies: RAW_BODIES, fields: FIELDS, wrongValues: WRONG_VALUES, base },
    );
  expect(sweep.failures).toEqual([]);
}, 300_000);
