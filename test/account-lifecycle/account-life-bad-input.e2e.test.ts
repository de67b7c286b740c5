/**
 * Bad input on every route of the account's life (issue #19: profile and username, account
 * deletion, contact discovery, location sharing, social recovery, key bundles of closed
 * accounts), table-driven over real HTTP: malformed JSON, bodies that are not objects, unknown
 * members, members of the wrong type, and malformed or unknown ids in the path each get the
 * failure envelope `{success: false, error, code}` with the documented status, never a 5xx.
 * The routes' own tests cover their semantic checks (lengths, ranges, states).
 */
import { Api } from '../support/session-api.js';
import type { Reply } from '../support/session-api.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';

const { service } = serviceForThisFile({ RATE_LIMITS_ENABLED: 'false' });
let caller: SignedIn;
beforeAll(async () => {
  caller = await signIn(service.baseUrl);
});

/** Sends `body` as the exact request text (JSON or not). */
async function send(method: 'GET' | 'POST', path: string, body?: string): Promise<Reply> {
  const response = await fetch(new Api(service.baseUrl).url(path), {
    method,
    headers: {
      ...bearer(caller),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

/** The failure envelope; `extra` holds members a route documents besides it (keys.proto's 404 `message`). */
const expectEnvelope = (
  reply: Reply,
  status: number,
  code: string,
  extra: Record<string, unknown> = {},
) =>
  expect({ status: reply.status, body: reply.body }).toEqual({
    status,
    body: { success: false, error: expect.any(String), code, ...extra },
  });

/** Each POST route of the area with a body whose first member has the wrong type. */
const POST_ROUTES: [path: string, wrongType: Record<string, unknown>][] = [
  ['/api/v1/update-username', { username: 42 }],
  ['/api/v1/update-profile', { display_name: ['x'] }],
  ['/api/v1/delete-account', { confirm: { address: 'x' } }],
  ['/api/v1/discover', { phone_hashes: 'abc' }],
  ['/api/v1/location/start', { peer_address: 7 }],
  ['/api/v1/location/update', { session_id: 's', latitude: 'north', longitude: 0 }],
  ['/api/v1/location/stop', { session_id: false }],
  ['/api/v1/recovery/setup', { guardians: 'not-a-list', min_guardians_required: 1 }],
  ['/api/v1/recovery/initiate', { address: 1, new_wallet_address: 2 }],
  ['/api/v1/recovery/challenge', { request_id: [], mode: 'social' }],
  ['/api/v1/recovery/guardian/approve/r1', { message: 1, signature: 2 }],
  ['/api/v1/recovery/guardian/reject/r1', { reason: {}, signature: 'x' }],
];

/** Text that does not parse is the gateway's MALFORMED_JSON; JSON that is no request of the RPC, INVALID_ARGUMENT. */
const MALFORMED_BODIES: [what: string, text: string, code: string][] = [
  ['text that is not JSON', 'not json', 'MALFORMED_JSON'],
  ['truncated JSON', '{"a": ', 'MALFORMED_JSON'],
  ['a JSON array', '[]', 'INVALID_ARGUMENT'],
  ['a JSON number', '5', 'INVALID_ARGUMENT'],
  ['JSON null', 'null', 'INVALID_ARGUMENT'],
  ['an unknown member', '{"unknown_member": 1}', 'INVALID_ARGUMENT'],
];

describe.each(POST_ROUTES)('POST %s', (path, wrongType) => {
  it.each(MALFORMED_BODIES)('answers %s with 400 %s', async (_what, text, code) => {
    expectEnvelope(await send('POST', path, text), 400, code);
  });

  it('answers a member of the wrong type with 400 INVALID_ARGUMENT', async () => {
    expectEnvelope(await send('POST', path, JSON.stringify(wrongType)), 400, 'INVALID_ARGUMENT');
  });
});

describe('ids in the path', () => {
  const unknownId = 'a'.repeat(32);
  it.each([
    ['GET', `/api/v1/recovery/requests/${unknownId}`, 404, 'NOT_FOUND'],
    // A malformed id is an unknown request (recovery.proto: the id is the capability).
    ['GET', `/api/v1/recovery/requests/${'x'.repeat(200)}`, 404, 'NOT_FOUND'],
    ['GET', '/api/v1/recovery/requests/%E2%9C%93%00', 404, 'NOT_FOUND'],
    ['POST', `/api/v1/recovery/guardian/approve/${'x'.repeat(200)}`, 400, 'INVALID_ARGUMENT'],
    ['POST', `/api/v1/recovery/guardian/reject/${'x'.repeat(200)}`, 400, 'INVALID_ARGUMENT'],
    ['GET', '/api/v1/keys/not-an-address', 400, 'INVALID_ARGUMENT'],
    ['GET', `/api/v1/keys/0x${'g'.repeat(40)}`, 400, 'INVALID_ARGUMENT'],
    ['GET', `/api/v1/keys/0x${'1'.repeat(39)}`, 400, 'INVALID_ARGUMENT'],
    ['GET', `/api/v1/keys/0x${'1'.repeat(40)}`, 404, 'NOT_FOUND'],
  ] as const)('%s %s answers %i %s', async (method, path, status, code) => {
    const body =
      method === 'POST'
        ? JSON.stringify({ message: 'm', signature: `0x${'1'.repeat(130)}`, reason: 'r' })
        : undefined;
    const reply = await send(method, path, body);
    expectEnvelope(
      reply,
      status,
      code,
      path.startsWith('/api/v1/keys/') && status === 404 ? { message: expect.any(String) } : {},
    );
  });
});
