/**
 * Wallet registration and sign-in over real HTTP (AuthService.Initialize, "Wallet login"):
 * every registration template layout creates the account and starts a session (token members,
 * user, cookies); the wallet then signs in with template 1; a registration message from a
 * wallet that already has an account signs it in and leaves the profile alone.
 */
import { TestUser } from '../../support/wallet.js';
import { expectSignedIn, freshMessage, postJson, signAndPost } from '../../support/signin-http.js';
import type { HttpAnswer, VariantName } from '../../support/signin-http.js';
import { serviceForThisFile } from '../../support/service-for-tests.js';

const { service } = serviceForThisFile();

const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SECOND = 1000;
const DAY = 24 * 3600 * SECOND;

interface SetCookie {
  value: string;
  /** Attribute names lowercased; flag attributes map to ''. */
  attributes: Record<string, string>;
}

function cookiesByName(lines: string[]): Record<string, SetCookie> {
  const cookies: Record<string, SetCookie> = {};
  for (const line of lines) {
    const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
    const eq = pair.indexOf('=');
    cookies[pair.slice(0, eq)] = {
      value: decodeURIComponent(pair.slice(eq + 1)),
      attributes: Object.fromEntries(
        attributes.map((attribute) => {
          const at = attribute.indexOf('=');
          return at < 0
            ? [attribute.toLowerCase(), '']
            : [attribute.slice(0, at).toLowerCase(), attribute.slice(at + 1)];
        }),
      ),
    };
  }
  return cookies;
}

/** The token members, the session cookie and the CSRF cookie of a successful sign-in. */
function expectSession(answer: HttpAnswer, sentAt: number): void {
  const body = answer.body;
  expect(body).toMatchObject({
    success: true,
    token_type: 'Bearer',
    expires_in: 900,
    mfa_required: false,
  });
  expect(body.access_token).toMatch(JWT);
  expect(body.refresh_token).toMatch(JWT);
  expect(body.refresh_token).not.toBe(body.access_token);
  expect(body.expires_at).toMatch(ISO_MS);
  expect(body.refresh_expires_at).toMatch(ISO_MS);
  expect(Math.abs(Date.parse(body.expires_at) - (sentAt + 900 * SECOND))).toBeLessThan(30 * SECOND);
  expect(Math.abs(Date.parse(body.refresh_expires_at) - (sentAt + 7 * DAY))).toBeLessThan(
    30 * SECOND,
  );
  expect(typeof body.session_id).toBe('string');
  expect(body.session_id).not.toBe('');
  expect(typeof body.csrf_token).toBe('string');
  expect(body.csrf_token).not.toBe('');

  const cookies = cookiesByName(answer.setCookies);
  expect(Object.keys(cookies).sort()).toEqual(['svc_csrf', 'svc_session']);
  const session = cookies.svc_session!;
  expect(session.value).not.toBe('');
  expect(session.attributes).toMatchObject({
    httponly: '',
    secure: '',
    samesite: 'Strict',
    path: '/',
  });
  const csrf = cookies.svc_csrf!;
  expect(csrf.value).toBe(body.csrf_token);
  expect(csrf.attributes).toMatchObject({ secure: '', samesite: 'Strict', path: '/' });
  expect(csrf.attributes).not.toHaveProperty('httponly');
}

/** A username with capitals in it, as a user may type it; the account stores it lowercased. */
const typedUsername = (user: TestUser) => `U${user.username.slice(1)}`;

const REGISTRATIONS: { variant: VariantName; displayName: string }[] = [
  { variant: 'registration compact', displayName: 'Ada Lovelace' },
  // Not ASCII: the EIP-191 prefix counts UTF-8 bytes, not characters.
  { variant: 'registration spaced', displayName: 'Zoë Ådahl 🚀' },
  { variant: 'registration-short compact', displayName: '' },
  { variant: 'registration-short spaced', displayName: '' },
];

describe.each(REGISTRATIONS)('$variant', ({ variant, displayName }) => {
  const user = new TestUser();

  it('creates the account: 200, the token members, the user and both cookies', async () => {
    const sentAt = Date.now();
    const answer = await signAndPost(
      service.baseUrl,
      user,
      freshMessage(variant, user, { username: typedUsername(user), name: displayName }),
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      is_new_user: true,
      user: {
        address: user.address.toLowerCase(),
        username: user.username,
        display_name: displayName,
        mfa_enabled: false,
      },
    });
    expectSession(answer, sentAt);
  });

  it('then signs the same wallet in with template 1: 200, is_new_user false, the same account', async () => {
    const sentAt = Date.now();
    const answer = await signAndPost(service.baseUrl, user, freshMessage('sign-in', user));
    expectSignedIn(answer, user, false);
    expect(answer.body.user).toEqual({
      address: user.address.toLowerCase(),
      username: user.username,
      display_name: displayName,
      mfa_enabled: false,
    });
    expectSession(answer, sentAt);
  });
});

describe('a registration message from a wallet that already has an account', () => {
  const user = new TestUser();
  const profile = () => ({
    address: user.address.toLowerCase(),
    username: user.username,
    display_name: 'First Name',
    mfa_enabled: false,
  });
  const otherName = `${user.username.slice(0, 28)}_alt`;

  beforeAll(async () => {
    const answer = await signAndPost(
      service.baseUrl,
      user,
      freshMessage('registration compact', user, { name: 'First Name' }),
    );
    expect(answer.status).toBe(200);
    expect(answer.body.is_new_user).toBe(true);
  });

  it.each<VariantName>([
    'registration compact',
    'registration spaced',
    'registration-short compact',
    'registration-short spaced',
  ])(
    'signs in with %s and keeps the profile although the username and name differ',
    async (variant) => {
      const sentAt = Date.now();
      const answer = await signAndPost(
        service.baseUrl,
        user,
        freshMessage(variant, user, { username: otherName, name: 'Second Name' }),
        { username: otherName },
      );
      expectSignedIn(answer, user, false);
      expect(answer.body.user).toEqual(profile());
      expectSession(answer, sentAt);
    },
  );

  it('left the other username free and the profile unchanged', async () => {
    const check = await postJson(service.baseUrl, '/api/v1/check-username', {
      username: otherName,
    });
    expect(check.status).toBe(200);
    expect(check.body).toMatchObject({ username: otherName, valid: true, available: true });
    const again = await signAndPost(service.baseUrl, user, freshMessage('sign-in', user));
    expectSignedIn(again, user, false);
    expect(again.body.user).toEqual(profile());
  });
});
