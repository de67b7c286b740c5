/**
 * Social recovery end to end over real HTTP and a real /ws client, on a clock shortened by
 * RECOVERY_HOUR (an hour of the windows and time locks lasts 40 ms: the 24-hour time lock
 * 0.96 s, each 7-day window 6.72 s). Signatures come from ethers wallets.
 */
import { RealtimeClient } from '../support/realtime-client.js';
import { expectFailure, expectOk, sleep } from '../support/session-api.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { TestUser, bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import {
  approvalMessage,
  approve,
  completeSocial,
  completeWithCode,
  initiate,
  newWalletProof,
  reject,
  setupRecovery,
} from './recovery-support.js';
import type { Json } from '../support/json.js';

const HOUR_MS = 40;
const TIME_LOCK_MS = 24 * HOUR_MS;
const WINDOW_MS = 7 * 24 * HOUR_MS;
const { service, api } = serviceForThisFile({
  RATE_LIMITS_ENABLED: 'false',
  RECOVERY_HOUR: `${HOUR_MS}ms`,
});
const clients: RealtimeClient[] = [];
afterAll(() => clients.forEach((client) => client.close()));

const lower = (session: SignedIn) => session.user.address.toLowerCase();
const user = () => signIn(service.baseUrl);
const twoUsers = () => Promise.all([user(), user()]);
const fourUsers = () => Promise.all([user(), user(), user(), user()]);

async function configured(owner: SignedIn, guardians: SignedIn[], min: number) {
  return expectOk(
    await setupRecovery(api, owner, {
      guardians: guardians.map((guardian) => guardian.user.address),
      min_guardians_required: min,
      time_lock_hours: 24,
    }),
  );
}

describe('a full social recovery with three guardians and a time lock', () => {
  it('moves the account to the new wallet: old wallet refused, sessions ended, history and username kept', async () => {
    const [alice, bob, carol, dave] = await fourUsers();
    const setup = await configured(alice, [bob, carol, dave], 2);
    expect(setup).toMatchObject({
      guardians: [lower(bob), lower(carol), lower(dave)],
      min_guardians_required: 2,
      time_lock_hours: 24,
      cancelled_request_id: '',
    });
    expect(setup.backup_codes).toHaveLength(12);
    expectOk(
      await api.post(
        '/api/v1/send',
        { client_message_id: 'r-1', recipient_address: bob.user.address, ciphertext: 'aGk=' },
        bearer(alice),
      ),
    );
    expectOk(
      await api.post(
        '/api/v1/send',
        { client_message_id: 'r-2', recipient_address: alice.user.address, ciphertext: 'aGk=' },
        bearer(bob),
      ),
    );
    const bobSocket = await RealtimeClient.connect(
      service.baseUrl,
      service.baseUrl,
      bob.accessToken,
    );
    clients.push(bobSocket);

    const newWallet = new TestUser();
    const opened = expectOk(await initiate(api, alice.user.address, newWallet)).request;
    expect(opened).toMatchObject({
      address: lower(alice),
      new_wallet_address: newWallet.address.toLowerCase(),
      status: 'pending',
      approvals_required: 2,
      guardians_count: 3,
      caller_decision: '',
    });
    expect((await bobSocket.next('recovery.request_updated')).data).toMatchObject({
      change: 'opened',
      request: { id: opened.id },
    });

    expect(expectOk(await approve(api, bob, opened)).request).toMatchObject({
      status: 'pending',
      approvals: 1,
      caller_decision: 'approved',
    });
    expectFailure(await approve(api, bob, opened), 409, 'CONFLICT');
    const locked = expectOk(await approve(api, carol, opened)).request;
    expect(locked).toMatchObject({ status: 'time_locked', approvals: 2 });
    expect(Date.parse(locked.unlocks_at) - Date.parse(locked.threshold_reached_at)).toBe(
      TIME_LOCK_MS,
    );
    expectFailure(await completeSocial(api, opened, newWallet), 409, 'CONFLICT');
    // Approvals after the threshold are still recorded.
    expect(expectOk(await approve(api, dave, opened)).request).toMatchObject({
      status: 'time_locked',
      approvals: 3,
    });

    await sleep(Date.parse(locked.unlocks_at) - Date.now() + 50);
    expect(expectOk(await api.get(`/api/v1/recovery/requests/${opened.id}`)).request.status).toBe(
      'ready',
    );
    const done = expectOk(await completeSocial(api, opened, newWallet));
    expect(done).toMatchObject({
      address: newWallet.address.toLowerCase(),
      previous_address: lower(alice),
      method: 'guardians',
      request: { status: 'completed' },
      backup_codes_remaining: 0,
    });

    // The old wallet: its sessions ended, it no longer signs in or registers.
    expectFailure(await api.listSessions(alice.accessToken), 401, 'UNAUTHORIZED');
    expectFailure(
      await api.post('/api/v1/initialize', await alice.user.initializeBody('sign-in')),
      403,
      'ACCOUNT_CLOSED',
    );
    expectFailure(
      await api.post('/api/v1/initialize', await alice.user.initializeBody('register')),
      403,
      'ACCOUNT_CLOSED',
    );
    // The new wallet signs in to the same account (its username), with its history.
    const signedIn = expectOk(
      await api.post('/api/v1/initialize', await newWallet.initializeBody('sign-in')),
    );
    expect(signedIn).toMatchObject({ is_new_user: false, user: { username: alice.user.username } });
    const moved = { accessToken: signedIn.access_token as string } as SignedIn;
    const history = expectOk(
      await api.get(`/api/v1/messages?peer_address=${bob.user.address}`, bearer(moved)),
    ).messages;
    expect(history.map((message: Json) => message.sender_address).sort()).toEqual(
      [lower(bob), newWallet.address.toLowerCase()].sort(),
    );
    const bobsView = expectOk(
      await api.get(`/api/v1/messages?peer_address=${newWallet.address}`, bearer(bob)),
    ).messages;
    expect(bobsView).toHaveLength(2);
    expect(
      (
        await bobSocket.next(
          'recovery.request_updated',
          (frame) => frame.data.change === 'completed',
        )
      ).data.request.status,
    ).toBe('completed');
    // The guardians stay the account's, now under the new address.
    expect(
      expectOk(await api.get('/api/v1/recovery/guardian/requests?status=completed', bearer(bob)))
        .requests[0],
    ).toMatchObject({ id: opened.id, address: lower(alice) });
  });
});

describe('the other ends of a request', () => {
  let owner: SignedIn;
  let guardians: SignedIn[];
  beforeEach(async () => {
    const [first, ...rest] = await fourUsers();
    owner = first;
    guardians = rest;
    await configured(owner, guardians, 2);
  });

  it('rejection: once the threshold is out of reach the request is rejected and cannot complete', async () => {
    const newWallet = new TestUser();
    const opened = expectOk(await initiate(api, owner.user.address, newWallet)).request;
    expect(expectOk(await reject(api, guardians[0]!, opened)).request).toMatchObject({
      status: 'pending',
      rejections: 1,
      caller_decision: 'rejected',
    });
    expect(expectOk(await reject(api, guardians[1]!, opened)).request).toMatchObject({
      status: 'rejected',
      rejections: 2,
    });
    expectFailure(await approve(api, guardians[2]!, opened), 410, 'GONE');
    expectFailure(await completeSocial(api, opened, newWallet), 410, 'GONE');
    // A closed request lets a new one open.
    expectOk(await initiate(api, owner.user.address, new TestUser()));
  });

  it('expiry: a request not approved within its window expires', async () => {
    const opened = expectOk(await initiate(api, owner.user.address, new TestUser())).request;
    expectFailure(await initiate(api, owner.user.address, new TestUser()), 409, 'CONFLICT');
    await sleep(WINDOW_MS + 100);
    expect(expectOk(await api.get(`/api/v1/recovery/requests/${opened.id}`)).request).toMatchObject(
      { status: 'expired', closed_at: opened.expires_at },
    );
    expectFailure(await approve(api, guardians[0]!, opened), 410, 'GONE');
    expectOk(await initiate(api, owner.user.address, new TestUser()));
  });

  it('cancellation: the owner reconfiguring cancels the open request', async () => {
    const newWallet = new TestUser();
    const opened = expectOk(await initiate(api, owner.user.address, newWallet)).request;
    await approve(api, guardians[0]!, opened);
    const again = expectOk(
      await setupRecovery(api, owner, {
        guardians: [guardians[0]!.user.address],
        min_guardians_required: 1,
      }),
    );
    expect(again).toMatchObject({ cancelled_request_id: opened.id, time_lock_hours: 72 });
    expect(expectOk(await api.get(`/api/v1/recovery/requests/${opened.id}`)).request.status).toBe(
      'cancelled',
    );
    expectFailure(await completeSocial(api, opened, newWallet), 410, 'GONE');
    expect(
      expectOk(await api.get('/api/v1/recovery/guardian/requests', bearer(guardians[1]!))).requests,
    ).toEqual([]);
  });
});

describe('backup-code recovery', () => {
  it('moves the account at once; each code works once; earlier codes die with a new setup; 5 wrong codes lock it', async () => {
    const [owner, spare] = await twoUsers();
    const first = expectOk(
      await setupRecovery(api, owner, { guardians: [], min_guardians_required: 0 }),
    ).backup_codes as string[];
    const codes = expectOk(
      await setupRecovery(api, owner, { guardians: [], min_guardians_required: 0 }),
    ).backup_codes as string[];
    expect(codes).toHaveLength(12);
    for (const code of codes)
      expect(code).toMatch(/^[a-z0-9]{5}-[a-z0-9]{5}-[a-z0-9]{5}-[a-z0-9]{5}$/);
    expectFailure(
      await completeWithCode(api, owner.user.address, new TestUser(), first[0]!),
      401,
      'UNAUTHORIZED',
    );

    const newWallet = new TestUser();
    const done = expectOk(
      await completeWithCode(
        api,
        owner.user.address,
        newWallet,
        codes[0]!.toUpperCase().replace(/-/g, ' '),
      ),
    );
    expect(done).toMatchObject({
      address: newWallet.address.toLowerCase(),
      previous_address: owner.user.address.toLowerCase(),
      method: 'backup_code',
      backup_codes_remaining: 11,
    });
    expectFailure(await api.listSessions(owner.accessToken), 401, 'UNAUTHORIZED');
    const moved = await signIn(service.baseUrl, newWallet, 'sign-in');
    // The codes moved with the account: the spent one is refused, the others still work.
    expectFailure(
      await completeWithCode(api, newWallet.address, new TestUser(), codes[0]!),
      401,
      'UNAUTHORIZED',
    );
    for (let attempt = 0; attempt < 4; attempt++)
      expectFailure(
        await completeWithCode(api, newWallet.address, new TestUser(), 'aaaaa-aaaaa-aaaaa-aaaaa'),
        401,
        'UNAUTHORIZED',
      );
    expectFailure(
      await completeWithCode(api, newWallet.address, new TestUser(), codes[1]!),
      429,
      'LOCKED_OUT',
    );
    await api.listSessions(moved.accessToken).then((reply) => expect(reply.status).toBe(200));
    // A wallet that has an account cannot be the target.
    expectFailure(
      await completeWithCode(api, spare.user.address, newWallet, codes[1]!),
      404,
      'NOT_FOUND',
    );
  });
});

describe('bad input gets the envelope and the right status', () => {
  let owner: SignedIn;
  let guardian: SignedIn;
  let opened: Json;
  const newWallet = new TestUser();
  beforeAll(async () => {
    [owner, guardian] = await twoUsers();
    await configured(owner, [guardian], 1);
    opened = expectOk(await initiate(api, owner.user.address, newWallet)).request;
  });

  it('SetupRecovery', async () => {
    expectFailure(
      await setupRecovery(
        api,
        owner,
        { guardians: [guardian.user.address], min_guardians_required: 1 },
        { sign: false },
      ),
      401,
      'SIGNATURE_REQUIRED',
    );
    const bad: Record<string, unknown>[] = [
      { guardians: ['0x12'], min_guardians_required: 1 },
      { guardians: [guardian.user.address, guardian.user.address], min_guardians_required: 1 },
      { guardians: [owner.user.address], min_guardians_required: 1 },
      { guardians: [new TestUser().address], min_guardians_required: 1 },
      {
        guardians: Array.from({ length: 11 }, () => new TestUser().address),
        min_guardians_required: 1,
      },
      { guardians: [guardian.user.address], min_guardians_required: 2 },
      { guardians: [guardian.user.address], min_guardians_required: 0 },
      { guardians: [], min_guardians_required: 1 },
      { guardians: [guardian.user.address], min_guardians_required: 1, time_lock_hours: 23 },
      { guardians: [guardian.user.address], min_guardians_required: 1, time_lock_hours: 721 },
      { guardians: [guardian.user.address], min_guardians_required: 1, recovery_email_hash: 'abc' },
      { guardians: 'nope' },
    ];
    for (const body of bad)
      expectFailure(await setupRecovery(api, owner, body), 400, 'INVALID_ARGUMENT');
    expectFailure(await api.post('/api/v1/recovery/setup', { guardians: [] }), 401, 'UNAUTHORIZED');
  });

  it('InitiateRecovery', async () => {
    const other = new TestUser();
    const proof = newWalletProof(owner.user.address, other.address);
    const signed = await other.sign(proof);
    const base = {
      address: owner.user.address,
      new_wallet_address: other.address,
      message: proof,
      signature: signed,
    };
    expectFailure(
      await api.post('/api/v1/recovery/initiate', { ...base, address: 'x' }),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.post('/api/v1/recovery/initiate', { ...base, message: 'hello' }),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.post('/api/v1/recovery/initiate', { ...base, signature: '0x1234' }),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.post('/api/v1/recovery/initiate', {
        ...base,
        signature: await new TestUser().sign(proof),
      }),
      401,
      'UNAUTHORIZED',
    );
    const stale = newWalletProof(owner.user.address, other.address, Date.now() - 6 * 60_000);
    expectFailure(
      await api.post('/api/v1/recovery/initiate', {
        ...base,
        message: stale,
        signature: await other.sign(stale),
      }),
      401,
      'EXPIRED_SIGNATURE',
    );
    expectFailure(await api.post('/api/v1/recovery/initiate', base), 409, 'CONFLICT');
    expectFailure(await api.post('/api/v1/recovery/initiate', base), 401, 'REPLAY_DETECTED');
    expectFailure(await initiate(api, new TestUser().address, new TestUser()), 404, 'NOT_FOUND');
    expectFailure(await initiate(api, guardian.user.address, new TestUser()), 404, 'NOT_FOUND');
    expectFailure(await initiate(api, owner.user.address, guardian.user), 409, 'CONFLICT');
    expectFailure(
      await api.post('/api/v1/recovery/initiate', { ...base, extra: 1 }),
      400,
      'INVALID_ARGUMENT',
    );
  });

  it('RecoveryChallenge', async () => {
    const proof = newWalletProof(owner.user.address, newWallet.address);
    const signature = await newWallet.sign(proof);
    expectFailure(
      await api.post('/api/v1/recovery/challenge', { message: proof, signature }),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.post('/api/v1/recovery/challenge', {
        request_id: opened.id,
        backup_code: 'x',
        message: proof,
        signature,
      }),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.post('/api/v1/recovery/challenge', {
        request_id: 'f'.repeat(32),
        message: proof,
        signature,
      }),
      404,
      'NOT_FOUND',
    );
    expectFailure(
      await api.post('/api/v1/recovery/challenge', {
        request_id: opened.id,
        address: guardian.user.address,
        message: proof,
        signature,
      }),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.post('/api/v1/recovery/challenge', {
        request_id: opened.id,
        message: 'nope',
        signature,
      }),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(await completeSocial(api, opened, newWallet), 409, 'CONFLICT');
    expectFailure(
      await api.post('/api/v1/recovery/challenge', {
        address: 'bad',
        new_wallet_address: newWallet.address,
        backup_code: 'x',
        message: proof,
        signature,
      }),
      400,
      'INVALID_ARGUMENT',
    );
  });

  it('GetRecoveryRequest, ListGuardianRequests', async () => {
    expectFailure(await api.get('/api/v1/recovery/requests/nope'), 404, 'NOT_FOUND');
    expectFailure(await api.get(`/api/v1/recovery/requests/${'0'.repeat(32)}`), 404, 'NOT_FOUND');
    const read = expectOk(await api.get(`/api/v1/recovery/requests/${opened.id}`)).request;
    expect(read).toMatchObject({ id: opened.id, status: 'pending', caller_decision: '' });
    expectFailure(
      await api.get('/api/v1/recovery/guardian/requests?status=bogus', bearer(guardian)),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.get('/api/v1/recovery/guardian/requests?page_size=500', bearer(guardian)),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.get('/api/v1/recovery/guardian/requests?cursor=zzz', bearer(guardian)),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(await api.get('/api/v1/recovery/guardian/requests'), 401, 'UNAUTHORIZED');
    expect(
      expectOk(await api.get('/api/v1/recovery/guardian/requests', bearer(guardian))).requests.map(
        (request: Json) => request.id,
      ),
    ).toEqual([opened.id]);
    expect(
      expectOk(await api.get('/api/v1/recovery/guardian/requests', bearer(owner))).requests,
    ).toEqual([]);
  });

  it('ApproveRecovery, RejectRecovery', async () => {
    const message = approvalMessage(opened);
    const signature = await guardian.user.sign(message);
    expectFailure(
      await api.post(
        `/api/v1/recovery/guardian/approve/${opened.id}`,
        { message, signature },
        bearer(owner),
      ),
      403,
      'FORBIDDEN',
    );
    expectFailure(
      await api.post(
        `/api/v1/recovery/guardian/approve/${'0'.repeat(32)}`,
        { message, signature },
        bearer(guardian),
      ),
      404,
      'NOT_FOUND',
    );
    expectFailure(
      await api.post(
        `/api/v1/recovery/guardian/approve/${opened.id}`,
        { message: 'nope', signature },
        bearer(guardian),
      ),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.post(
        `/api/v1/recovery/guardian/approve/${opened.id}`,
        { message, signature: await owner.user.sign(message) },
        bearer(guardian),
      ),
      401,
      'UNAUTHORIZED',
    );
    expectFailure(
      await api.post(`/api/v1/recovery/guardian/approve/${opened.id}`, { message, signature }),
      401,
      'UNAUTHORIZED',
    );
    const reason = 'no';
    expectFailure(
      await api.post(
        `/api/v1/recovery/guardian/reject/${opened.id}`,
        { reason: '', signature },
        bearer(guardian),
      ),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.post(
        `/api/v1/recovery/guardian/reject/${opened.id}`,
        { reason: 'a\nb', signature },
        bearer(guardian),
      ),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.post(
        `/api/v1/recovery/guardian/reject/${opened.id}`,
        { reason: 'x'.repeat(501), signature },
        bearer(guardian),
      ),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.post(
        `/api/v1/recovery/guardian/reject/${opened.id}`,
        { reason, signature: '0xzz' },
        bearer(guardian),
      ),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.post(
        `/api/v1/recovery/guardian/reject/${opened.id}`,
        { reason, signature },
        bearer(guardian),
      ),
      401,
      'UNAUTHORIZED',
    );
    expectOk(
      await api.post(
        `/api/v1/recovery/guardian/approve/${opened.id}`,
        { message, signature },
        bearer(guardian),
      ),
    );
    expectFailure(
      await api.post(
        `/api/v1/recovery/guardian/approve/${opened.id}`,
        { message, signature },
        bearer(guardian),
      ),
      401,
      'REPLAY_DETECTED',
    );
    expectFailure(await reject(api, guardian, opened), 409, 'CONFLICT');
  });
});
