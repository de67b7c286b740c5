/**
 * AuthService.CheckUsername over real HTTP (POST /api/v1/check-username): well-formedness,
 * case-insensitive availability, the caller's own name reported available, and the rule that
 * a Bearer token, once presented, must be valid.
 */
import { bearer, signIn } from '../../support/wallet.js';
import type { SignedIn } from '../../support/wallet.js';
import { expectFailure, postJson } from '../../support/signin-http.js';
import { serviceForThisFile } from '../../support/service-for-tests.js';

let holder: SignedIn;
let stranger: SignedIn;
const { service } = serviceForThisFile();
beforeAll(async () => {
  holder = await signIn(service.baseUrl);
  stranger = await signIn(service.baseUrl);
});

const check = (body: unknown, headers: Record<string, string> = {}) =>
  postJson(service.baseUrl, '/api/v1/check-username', body, headers);

describe('a valid name', () => {
  it('that nobody holds: available', async () => {
    const answer = await check({ username: 'carol_99' });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      success: true,
      message: expect.any(String),
      username: 'carol_99',
      valid: true,
      available: true,
      reason: '',
    });
  });

  it('typed with capitals: checked and reported lowercased', async () => {
    const answer = await check({ username: 'Carol_99' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      username: 'carol_99',
      valid: true,
      available: true,
      reason: '',
    });
  });

  it.each(['same case', 'other case'])(
    'that another account holds (%s): taken',
    async (spelling) => {
      const username =
        spelling === 'same case' ? holder.user.username : holder.user.username.toUpperCase();
      const answer = await check({ username });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        success: true,
        message: expect.any(String),
        username: holder.user.username,
        valid: true,
        available: false,
        reason: 'taken',
      });
    },
  );
});

describe('an invalid name', () => {
  const INVALID = ['1abc', 'ab', 'ab-cd', 'Ab cd', `a${'b'.repeat(32)}`];

  it.each(INVALID)(
    '"%s": 200, not valid, not available, with a human-readable message and a reason',
    async (username) => {
      const answer = await check({ username });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        success: true,
        message: expect.any(String),
        username: username.toLowerCase(),
        valid: false,
        available: false,
        reason: expect.any(String),
      });
      expect(answer.body.message).not.toBe('');
      expect(answer.body.reason).not.toBe('');
    },
  );

  // CheckUsernameResponse.reason is a machine value (`invalid`, `taken` or `reserved`).
  it.each(INVALID)('"%s": reason is the machine value invalid', async (username) => {
    const answer = await check({ username });
    expect(answer.body.reason).toBe('invalid');
  });
});

describe('reserved names and trimming', () => {
  it('reports a reserved name as valid but not available', async () => {
    const answer = await check({ username: 'Admin' });
    expect(answer.body).toMatchObject({
      username: 'admin',
      valid: true,
      available: false,
      reason: 'reserved',
    });
  });

  it('checks the name as it would be stored: trimmed and lowercased', async () => {
    const answer = await check({ username: '  Carol_9 ' });
    expect(answer.body).toMatchObject({
      username: 'carol_9',
      valid: true,
      available: true,
      reason: '',
    });
  });
});

describe('a missing or oversized name', () => {
  it.each<[string, unknown]>([
    ['empty', { username: '' }],
    ['absent', {}],
    ['65 characters', { username: `a${'b'.repeat(64)}` }],
  ])('400 INVALID_ARGUMENT when %s', async (_, body) => {
    expectFailure(await check(body), 400, 'INVALID_ARGUMENT');
  });

  it('accepts 64 characters (control): an invalid name, answered 200', async () => {
    const answer = await check({ username: `a${'b'.repeat(63)}` });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ valid: false, available: false });
  });
});

describe('with a Bearer token', () => {
  it("the holder's own name is available to the holder, in any case", async () => {
    for (const username of [holder.user.username, holder.user.username.toUpperCase()]) {
      const answer = await check({ username }, bearer(holder));
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        success: true,
        message: expect.any(String),
        username: holder.user.username,
        valid: true,
        available: true,
        reason: '',
      });
    }
  });

  it("the holder's name is still taken for another signed-in account", async () => {
    const answer = await check({ username: holder.user.username }, bearer(stranger));
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ available: false, reason: 'taken' });
  });

  it.each([
    ['a garbage token', 'Bearer garbage.token.here'],
    ['a token that is not a JWT', 'Bearer not-a-jwt'],
    ['a refresh token', 'refresh'],
    ['a tampered access token', 'tampered'],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
  ])('401 UNAUTHORIZED with %s, never ignored', async (_, header) => {
    const authorization =
      header === 'refresh'
        ? `Bearer ${holder.refreshToken}`
        : header === 'tampered'
          ? `Bearer ${holder.accessToken.slice(0, -4)}AAAA`
          : header;
    expectFailure(await check({ username: 'carol_99' }, { authorization }), 401, 'UNAUTHORIZED');
  });
});
