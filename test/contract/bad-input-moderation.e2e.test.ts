/**
 * Bad input on every moderation route (moderation.proto) and on the franking field of the send
 * routes, over real HTTP, as bad-input-relations.e2e.test.ts does for relations: a table of
 * malformed requests with the exact status and code each must get; then every route is sent
 * bodies that are not JSON or have wrong JSON types, which must all get the failure envelope
 * with a 4xx, never a 5xx.
 */
import { randomBytes } from 'node:crypto';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { expectFailure, expectOk } from '../support/session-api.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import { dataWithReviewer } from '../moderation/support/reviewer.js';
import { TestUser } from '../support/wallet.js';

const reviewerUser = new TestUser();
const { service, api } = serviceForThisFile(
  {},
  { prepareDataDir: () => dataWithReviewer({}, reviewerUser) },
);

const b64 = (bytes: Buffer | string) => Buffer.from(bytes).toString('base64');
const UNREGISTERED = `0x${randomBytes(20).toString('hex')}`;
let reviewer: SignedIn;
let alice: SignedIn;
let bob: SignedIn;
let directId: string;
let frankedId: string;

beforeAll(async () => {
  [reviewer, alice, bob] = await Promise.all([
    signIn(service.baseUrl, reviewerUser, 'sign-in'),
    signIn(service.baseUrl),
    signIn(service.baseUrl),
  ]);
  const send = async (extra: Record<string, unknown>) =>
    expectOk(
      await api.post(
        '/api/v1/send',
        {
          client_message_id: `bad-mod-${Date.now()}-${Math.random().toString(36).slice(2)}`,
          recipient_address: bob.user.address,
          ciphertext: b64('x'),
          ...extra,
        },
        bearer(alice),
      ),
    ).chat_message.id as string;
  directId = await send({});
  frankedId = await send({ franking_commitment: b64(randomBytes(32)) });
});

type Who = 'alice' | 'bob' | 'reviewer';
/** [what, caller, method, path, body (a function: ids exist after beforeAll), status, code]. */
type Row = [string, Who, 'GET' | 'POST', () => string, () => unknown, number, string];
const who = (name: Who) => ({ alice, bob, reviewer })[name];
const direct = () => ({ peer_address: alice.user.address });
const MESSAGES = () => '/api/v1/moderation/reports/messages';
const ACCOUNTS = () => '/api/v1/moderation/reports/accounts';
const moderate = (address: string) => () => `/api/v1/admin/accounts/${address}/moderation`;

const ROWS: Row[] = [
  [
    'send: commitment of 31 bytes',
    'alice',
    'POST',
    () => '/api/v1/send',
    () => ({
      client_message_id: 'c31',
      recipient_address: bob.user.address,
      ciphertext: b64('x'),
      franking_commitment: b64(randomBytes(31)),
    }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'post: commitment of 33 bytes',
    'alice',
    'POST',
    () => '/api/v1/send',
    () => ({
      client_message_id: 'c33',
      recipient_address: bob.user.address,
      ciphertext: b64('x'),
      franking_commitment: b64(randomBytes(33)),
    }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'report: no conversation',
    'bob',
    'POST',
    MESSAGES,
    () => ({ message_id: directId, reason: 'spam' }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'report: two conversations',
    'bob',
    'POST',
    MESSAGES,
    () => ({ ...direct(), group_id: 'g', message_id: directId, reason: 'spam' }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'report: no message id',
    'bob',
    'POST',
    MESSAGES,
    () => ({ ...direct(), reason: 'spam' }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'report: unknown reason',
    'bob',
    'POST',
    MESSAGES,
    () => ({ ...direct(), message_id: directId, reason: 'boring' }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'report: no reason',
    'bob',
    'POST',
    MESSAGES,
    () => ({ ...direct(), message_id: directId }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'report: absurd message id',
    'bob',
    'POST',
    MESSAGES,
    () => ({ ...direct(), message_id: 'x'.repeat(300), reason: 'spam' }),
    404,
    'NOT_FOUND',
  ],
  [
    'report: unregistered peer',
    'bob',
    'POST',
    MESSAGES,
    () => ({ peer_address: UNREGISTERED, message_id: directId, reason: 'spam' }),
    404,
    'NOT_FOUND',
  ],
  [
    'report: malformed peer',
    'bob',
    'POST',
    MESSAGES,
    () => ({ peer_address: '0x12', message_id: directId, reason: 'spam' }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'report: key of 16 bytes',
    'bob',
    'POST',
    MESSAGES,
    () => ({
      ...direct(),
      message_id: frankedId,
      reason: 'spam',
      plaintext: b64('x'),
      franking_key: b64(randomBytes(16)),
    }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'report: plaintext too long',
    'bob',
    'POST',
    MESSAGES,
    () => ({
      ...direct(),
      message_id: frankedId,
      reason: 'spam',
      plaintext: b64(Buffer.alloc(65_537)),
      franking_key: b64(randomBytes(32)),
    }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'report: key for an unfranked message',
    'bob',
    'POST',
    MESSAGES,
    () => ({
      ...direct(),
      message_id: directId,
      reason: 'spam',
      franking_key: b64(randomBytes(32)),
    }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'report: franked without key',
    'bob',
    'POST',
    MESSAGES,
    () => ({ ...direct(), message_id: frankedId, reason: 'spam', plaintext: b64('x') }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'report: franked, wrong key',
    'bob',
    'POST',
    MESSAGES,
    () => ({
      ...direct(),
      message_id: frankedId,
      reason: 'spam',
      plaintext: b64('x'),
      franking_key: b64(randomBytes(32)),
    }),
    400,
    'FRANKING_MISMATCH',
  ],
  [
    'report account: malformed',
    'bob',
    'POST',
    ACCOUNTS,
    () => ({ address: 'nobody', reason: 'spam' }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'report account: oneself',
    'bob',
    'POST',
    ACCOUNTS,
    () => ({ address: bob.user.address, reason: 'spam' }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'report account: bad reason',
    'bob',
    'POST',
    ACCOUNTS,
    () => ({ address: alice.user.address, reason: 'other' }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'report account: unregistered',
    'bob',
    'POST',
    ACCOUNTS,
    () => ({ address: UNREGISTERED, reason: 'spam' }),
    404,
    'NOT_FOUND',
  ],
  [
    'challenge: no CAPTCHA configured',
    'bob',
    'POST',
    () => '/api/v1/moderation/challenge',
    () => ({ captcha_token: 'x' }),
    503,
    'CAPTCHA_UNAVAILABLE',
  ],
  [
    'list: bad status',
    'reviewer',
    'GET',
    () => '/api/v1/admin/reports?status=closed',
    () => undefined,
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'list: bad page size',
    'reviewer',
    'GET',
    () => '/api/v1/admin/reports?page_size=500',
    () => undefined,
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'list: bad cursor',
    'reviewer',
    'GET',
    () => '/api/v1/admin/reports?cursor=zz',
    () => undefined,
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'list: not an operator',
    'bob',
    'GET',
    () => '/api/v1/admin/reports',
    () => undefined,
    403,
    'FORBIDDEN',
  ],
  [
    'resolve: unknown report',
    'reviewer',
    'POST',
    () => '/api/v1/admin/reports/nope/resolve',
    () => ({ resolution: 'dismissed' }),
    404,
    'NOT_FOUND',
  ],
  [
    'resolve: bad resolution',
    'reviewer',
    'POST',
    () => '/api/v1/admin/reports/nope/resolve',
    () => ({ resolution: 'ignored' }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'resolve: note too long',
    'reviewer',
    'POST',
    () => '/api/v1/admin/reports/nope/resolve',
    () => ({ resolution: 'dismissed', note: 'n'.repeat(501) }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'moderate: malformed address',
    'reviewer',
    'POST',
    moderate('0x12'),
    () => ({ action: 'warn' }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'moderate: unknown action',
    'reviewer',
    'POST',
    moderate(UNREGISTERED),
    () => ({ action: 'ban' }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'moderate: suspend too short',
    'reviewer',
    'POST',
    moderate(UNREGISTERED),
    () => ({ action: 'suspend', duration_seconds: 59 }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'moderate: suspend too long',
    'reviewer',
    'POST',
    moderate(UNREGISTERED),
    () => ({ action: 'suspend', duration_seconds: 31_536_001 }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'moderate: duration on warn',
    'reviewer',
    'POST',
    moderate(UNREGISTERED),
    () => ({ action: 'warn', duration_seconds: 60 }),
    400,
    'INVALID_ARGUMENT',
  ],
  [
    'moderate: unregistered',
    'reviewer',
    'POST',
    moderate(UNREGISTERED),
    () => ({ action: 'suspend', duration_seconds: 60 }),
    404,
    'NOT_FOUND',
  ],
  [
    'moderate: oneself',
    'reviewer',
    'POST',
    () => moderate(reviewerUser.address)(),
    () => ({ action: 'warn' }),
    400,
    'INVALID_ARGUMENT',
  ],
];

it.each(ROWS)('%s', async (_what, caller, method, path, body, status, code) => {
  const headers = bearer(who(caller));
  const reply =
    method === 'GET' ? await api.get(path(), headers) : await api.post(path(), body(), headers);
  expectFailure(reply, status, code);
});

const POST_ROUTES = [
  '/api/v1/moderation/reports/messages',
  '/api/v1/moderation/reports/accounts',
  '/api/v1/moderation/challenge',
  '/api/v1/admin/reports/r1/resolve',
  `/api/v1/admin/accounts/${UNREGISTERED}/moderation`,
];
const WRONG_TYPES = [
  'not json',
  '[]',
  '{"reason": 5}',
  '{"plaintext": "%%%"}',
  '{"franking_key": {"a": 1}}',
  '{"duration_seconds": -1}',
  '{"duration_seconds": "many"}',
  '{"address": ["x"]}',
];

it('answers every malformed body on every route with the envelope and a 4xx', async () => {
  for (const route of POST_ROUTES)
    for (const body of WRONG_TYPES) {
      const response = await fetch(`${service.baseUrl}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(reviewer) },
        body,
      });
      const envelope = (await response.json()) as Record<string, unknown>;
      expect({ route, body, status: response.status >= 400 && response.status < 500 }).toEqual({
        route,
        body,
        status: true,
      });
      expect(envelope).toMatchObject({ success: false, code: expect.any(String) });
    }
});
