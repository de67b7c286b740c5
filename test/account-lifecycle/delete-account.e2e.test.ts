/**
 * Account deletion over real HTTP (profile.proto DeleteAccount): the X-Signature gate (an access
 * token alone cannot delete the account), bad input, the MFA gate, and what a deletion leaves:
 * sessions ended, the wallet refused at sign-in and registration, the account gone for others.
 */
import { enableMfa } from '../mfa/mfa-support.js';
import {
  expectAccessAccepted,
  expectFailure,
  expectOk,
  expectRefreshRefused,
} from '../support/session-api.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import {
  DELETE_ACCOUNT_RPC,
  SETUP_RECOVERY_RPC,
  encodeDeleteAccount,
  signedRequestText,
  xSignature,
} from '../support/signed-request.js';
import { highSTwin, isHighS, recoverAllowingHighS } from '../support/signin-signatures.js';
import { bearer, signIn, TestUser } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import type { Json } from '../support/json.js';

const { service, api } = serviceForThisFile({ RATE_LIMITS_ENABLED: 'false' });
const PATH = '/api/v1/delete-account';

/** POSTs the deletion with the exact body text it signs. */
async function deleteWith(
  session: SignedIn,
  body: Record<string, unknown>,
  signature?: string | ((body: Record<string, unknown>) => Promise<string>),
) {
  const text = JSON.stringify(body);
  const header = typeof signature === 'function' ? await signature(body) : signature;
  const response = await fetch(api.url(PATH), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...bearer(session),
      ...(header === undefined ? {} : { 'x-signature': header }),
    },
    body: text,
  });
  return {
    status: response.status,
    body: (await response.json()) as Json,
    headers: response.headers,
  };
}

const signedBy =
  (session: SignedIn, options: { timestampMs?: number; rpc?: string } = {}) =>
  (body: Record<string, unknown>) =>
    xSignature(session.user, {
      rpc: options.rpc ?? DELETE_ACCOUNT_RPC,
      body: encodeDeleteAccount(body),
      timestampMs: options.timestampMs,
    });

describe('the X-Signature gate', () => {
  let alice: SignedIn;
  let mallory: SignedIn;
  beforeAll(async () => {
    [alice, mallory] = await Promise.all([signIn(service.baseUrl), signIn(service.baseUrl)]);
  });

  it('an access token without X-Signature cannot delete the account', async () => {
    expectFailure(
      await deleteWith(alice, { confirm: alice.user.address }),
      401,
      'SIGNATURE_REQUIRED',
    );
    expectFailure(
      await deleteWith(alice, { confirm: alice.user.address }, 'not-a-signature'),
      401,
      'SIGNATURE_REQUIRED',
    );
    await expectAccessAccepted(api, alice.accessToken);
  });

  it('refuses a signature by another wallet, of another RPC, of another body, or stale', async () => {
    const body = { confirm: alice.user.address };
    expectFailure(
      await deleteWith(alice, body, (signed) =>
        xSignature(
          mallory.user,
          { rpc: DELETE_ACCOUNT_RPC, body: encodeDeleteAccount(signed) },
          alice.user.address,
        ),
      ),
      401,
      'UNAUTHORIZED',
    );
    expectFailure(
      await deleteWith(alice, body, signedBy(alice, { rpc: SETUP_RECOVERY_RPC })),
      401,
      'UNAUTHORIZED',
    );
    const otherBody = await signedBy(alice)({ confirm: alice.user.address, reason: 'x' });
    expectFailure(await deleteWith(alice, body, otherBody), 401, 'UNAUTHORIZED');
    expectFailure(
      await deleteWith(alice, body, signedBy(alice, { timestampMs: Date.now() - 6 * 60_000 })),
      401,
      'EXPIRED_SIGNATURE',
    );
    await expectAccessAccepted(api, alice.accessToken);
  });

  it('refuses the high-S twin of a valid signature (EIP-2), which leaves the valid one unspent', async () => {
    const body = { confirm: mallory.user.address }; // refused with 400 once past the gate: alice stays
    const valid = await signedBy(alice)(body);
    const [timestamp, signature] = valid.split('.') as [string, string];
    const twin = highSTwin(signature);
    expect(isHighS(twin)).toBe(true);
    const text = signedRequestText(
      alice.user.address,
      { rpc: DELETE_ACCOUNT_RPC, body: encodeDeleteAccount(body) },
      Number(timestamp),
    );
    expect(recoverAllowingHighS(text, twin).toLowerCase()).toBe(alice.user.address.toLowerCase());
    expectFailure(await deleteWith(alice, body, `${timestamp}.${twin}`), 401, 'UNAUTHORIZED');
    expectFailure(await deleteWith(alice, body, valid), 400, 'INVALID_ARGUMENT');
    await expectAccessAccepted(api, alice.accessToken);
  });

  it('bad input gets the envelope and 400, and a spent signature is not accepted again', async () => {
    const wrongConfirm = { confirm: mallory.user.address };
    const header = await signedBy(alice)(wrongConfirm);
    expectFailure(await deleteWith(alice, wrongConfirm, header), 400, 'INVALID_ARGUMENT');
    expectFailure(await deleteWith(alice, wrongConfirm, header), 401, 'REPLAY_DETECTED');
    expectFailure(
      await deleteWith(
        alice,
        { confirm: alice.user.address, reason: 'x'.repeat(501) },
        signedBy(alice),
      ),
      400,
      'INVALID_ARGUMENT',
    );
    const valid = await signedBy(alice)({ confirm: alice.user.address });
    expectFailure(
      await deleteWith(alice, { confirm: alice.user.address, unknown_member: 1 }, valid),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(await deleteWith(alice, { confirm: 7 }, valid), 400, 'INVALID_ARGUMENT');
    await expectAccessAccepted(api, alice.accessToken);
  });
});

describe('a deletion', () => {
  it('ends every session, refuses the wallet and hides the account from others; the legacy path takes the same signature', async () => {
    const alice = await signIn(service.baseUrl);
    const second = await signIn(service.baseUrl, alice.user, 'sign-in');
    const bob = await signIn(service.baseUrl);
    expectOk(
      await api.post(
        '/api/v1/send',
        { client_message_id: 'd-1', recipient_address: bob.user.address, ciphertext: 'aGk=' },
        bearer(alice),
      ),
    );
    expectOk(
      await api.post(
        '/api/v1/send',
        { client_message_id: 'd-2', recipient_address: alice.user.address, ciphertext: 'aGk=' },
        bearer(bob),
      ),
    );
    expectOk(
      await api.post('/api/v1/update-status', { status: 'busy', status_text: 'x' }, bearer(alice)),
    );

    const body = {
      confirm: alice.user.address.toUpperCase().replace('0X', '0x'),
      reason: 'leaving',
    };
    const legacy = await fetch(api.url('/api/delete-account'), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...bearer(alice),
        'x-signature': await signedBy(alice)(body),
      },
      body: JSON.stringify(body),
    });
    const deleted = expectOk({
      status: legacy.status,
      body: await legacy.json(),
      headers: legacy.headers,
    });
    expect(deleted.deleted_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    for (const session of [alice, second]) {
      expectFailure(await api.listSessions(session.accessToken), 401, 'UNAUTHORIZED');
      await expectRefreshRefused(api, session.refreshToken);
    }
    const signInAgain = await api.post(
      '/api/v1/initialize',
      await alice.user.initializeBody('sign-in'),
    );
    expectFailure(signInAgain, 403, 'ACCOUNT_CLOSED');
    const registerAgain = await api.post(
      '/api/v1/initialize',
      await alice.user.initializeBody('register'),
    );
    expectFailure(registerAgain, 403, 'ACCOUNT_CLOSED');
    // Others no longer reach the account (what was delivered stays on their devices).
    expectFailure(
      await api.post(
        '/api/v1/send',
        { client_message_id: 'd-3', recipient_address: alice.user.address, ciphertext: 'aGk=' },
        bearer(bob),
      ),
      404,
      'NOT_FOUND',
    );
    expectFailure(
      await api.get(`/api/v1/messages?peer_address=${alice.user.address}`, bearer(bob)),
      404,
      'NOT_FOUND',
    );
    await expectAccessAccepted(api, bob.accessToken);
  });

  it('with MFA on needs a current code or an unused backup code (403 otherwise)', async () => {
    const carol = await signIn(service.baseUrl);
    const mfa = await enableMfa(api, carol);
    const body = { confirm: carol.user.address };
    expectFailure(await deleteWith(carol, body, signedBy(carol)), 403, 'FORBIDDEN');
    expectFailure(
      await deleteWith(carol, { ...body, mfa_code: '000000' }, signedBy(carol)),
      403,
      'FORBIDDEN',
    );
    expectFailure(
      await deleteWith(carol, { ...body, mfa_code: 'not a code' }, signedBy(carol)),
      403,
      'FORBIDDEN',
    );
    expectOk(await deleteWith(carol, { ...body, mfa_code: mfa.backupCodes[0] }, signedBy(carol)));
    expectFailure(await api.listSessions(carol.accessToken), 401, 'UNAUTHORIZED');
  });

  it("a user who never registered cannot be deleted by someone else's token", async () => {
    const dave = await signIn(service.baseUrl);
    const stranger = new TestUser();
    expectFailure(
      await deleteWith(dave, { confirm: stranger.address }, signedBy(dave)),
      400,
      'INVALID_ARGUMENT',
    );
    await expectAccessAccepted(api, dave.accessToken);
  });
});
