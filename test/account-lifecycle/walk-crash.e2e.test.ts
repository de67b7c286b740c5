/**
 * An account move (backup-code recovery) and an account deletion killed mid-way: the real
 * service runs as a child process with ACCOUNT_WALK_FAULT_EXIT_AFTER, so it kill -9s itself
 * after a few owners of the walk; a new process on the same DATA_DIR (without the fault, and
 * with its in-process shared state empty, as after a Redis loss) finishes the walk at start,
 * and the account ends consistent: moved or deleted everywhere, the old wallet refused.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChildService } from '../support/child-service.js';
import type { ChildService } from '../support/child-service.js';
import { passesEventually } from '../support/passes-eventually.js';
import { Api, expectFailure, expectOk } from '../support/session-api.js';
import { deleteAccountSigned } from '../support/signed-request.js';
import { TestUser, bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import { completeWithCode, setupRecovery } from '../recovery/recovery-support.js';
import type { Json } from '../support/json.js';

const ENV = { RATE_LIMITS_ENABLED: 'false', KEYS_DHT: 'off' };
/** The walk stops after this many owners of `accountData` (src/app/api-areas.ts), identity being the last. */
const OWNERS_BEFORE_THE_KILL = 3;
/** Each test starts two service processes: on a loaded machine that alone can take most of jest's default 30 s. */
const CHILD_PROCESS_TEST_MS = 120_000;

let dataDir: string;
let running: ChildService | undefined;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'walk-crash-'));
});
afterEach(async () => {
  await running?.stop();
  running = undefined;
  await rm(dataDir, { recursive: true, force: true });
});

async function start(faulty: boolean): Promise<Api> {
  running = await startChildService(
    {
      ...ENV,
      ...(faulty ? { ACCOUNT_WALK_FAULT_EXIT_AFTER: String(OWNERS_BEFORE_THE_KILL) } : {}),
    },
    { dataDir },
  );
  return new Api(running.baseUrl);
}

/** Runs `request`, which the process answers by dying; waits for the exit. */
async function diesDuring(request: () => Promise<unknown>): Promise<void> {
  const exited = new Promise<void>((resolve) => running!.process.once('exit', () => resolve()));
  await request().then(
    (reply) => {
      throw new Error(`the process answered instead of dying: ${JSON.stringify(reply)}`);
    },
    () => undefined,
  );
  await exited;
  // Only the fault hook sends SIGKILL (after its owners). Its log line is no evidence: the log
  // stream writes asynchronously, so the kill can beat the line out of the process.
  expect(running!.process.signalCode).toBe('SIGKILL');
  running = undefined;
}

/** Alice and Bob chat directly and share a group that Alice owns. */
async function chatting(api: Api): Promise<[SignedIn, SignedIn, string]> {
  const [alice, bob] = await Promise.all([signIn(api.baseUrl), signIn(api.baseUrl)]);
  expectOk(
    await api.post(
      '/api/v1/send',
      { client_message_id: 'c-1', recipient_address: bob.user.address, ciphertext: 'aGk=' },
      bearer(alice),
    ),
  );
  expectOk(
    await api.post(
      '/api/v1/send',
      { client_message_id: 'c-2', recipient_address: alice.user.address, ciphertext: 'aGk=' },
      bearer(bob),
    ),
  );
  expectOk(
    await api.post(
      '/api/v1/update-status',
      { status: 'away', status_text: 'moving' },
      bearer(alice),
    ),
  );
  const groupId = expectOk(
    await api.post(
      '/api/v1/groups/create',
      { name: 'walkers', member_addresses: [bob.user.address] },
      bearer(alice),
    ),
  ).group.id as string;
  return [alice, bob, groupId];
}

/** The group as a member sees it: owner and members with their roles. */
async function groupSeenBy(api: Api, accessToken: string, groupId: string) {
  const reply = expectOk(
    await api.get(`/api/v1/groups/${groupId}`, { authorization: `Bearer ${accessToken}` }),
  );
  const members = (reply.members as { address: string; role: string }[]).map(
    ({ address, role }) => ({ address, role }),
  );
  return {
    owner: reply.group.owner_address as string,
    members: members.sort((a, b) => a.address.localeCompare(b.address)),
  };
}

it(
  'a recovery killed mid-move is finished by the next process: account on the new wallet, memberships and history intact',
  async () => {
    let api = await start(true);
    const [alice, bob, groupId] = await chatting(api);
    const codes = expectOk(
      await setupRecovery(api, alice, {
        guardians: [bob.user.address],
        min_guardians_required: 1,
        time_lock_hours: 24,
      }),
    ).backup_codes as string[];
    const newWallet = new TestUser();
    await diesDuring(() => completeWithCode(api, alice.user.address, newWallet, codes[0]!));

    api = await start(false);
    // The new process resumes the walk as it starts: what it finishes shows after a while.
    await passesEventually(async () =>
      expectOk(await api.post('/api/v1/initialize', await newWallet.initializeBody('sign-in'))),
    );
    const moved = expectOk(
      await api.post('/api/v1/initialize', await newWallet.initializeBody('sign-in')),
    );
    expect(moved.user.username).toBe(alice.user.username);
    expectFailure(
      await api.post('/api/v1/initialize', await alice.user.initializeBody('sign-in')),
      403,
      'ACCOUNT_CLOSED',
    );
    expectFailure(await api.listSessions(alice.accessToken), 401, 'UNAUTHORIZED');
    const bobAgain = expectOk(
      await api.post('/api/v1/initialize', await bob.user.initializeBody('sign-in')),
    );
    const history = expectOk(
      await api.get(`/api/v1/messages?peer_address=${newWallet.address}`, {
        authorization: `Bearer ${bobAgain.access_token}`,
      }),
    ).messages;
    expect(history.map((message: Json) => message.sender_address).sort()).toEqual(
      [bob.user.address.toLowerCase(), newWallet.address.toLowerCase()].sort(),
    );
    expectFailure(
      await api.get(`/api/v1/messages?peer_address=${alice.user.address}`, {
        authorization: `Bearer ${bobAgain.access_token}`,
      }),
      404,
      'NOT_FOUND',
    );
    // The group membership (and ownership) moved with the account; the old address is no member.
    const newAddress = newWallet.address.toLowerCase();
    const group = await groupSeenBy(api, moved.access_token, groupId);
    expect(group.owner).toBe(newAddress);
    expect(group.members.map((member) => member.address).sort()).toEqual(
      [bob.user.address.toLowerCase(), newAddress].sort(),
    );
    // The spent code stays spent; the configuration moved with the account.
    expectFailure(
      await completeWithCode(api, newWallet.address, new TestUser(), codes[0]!),
      401,
      'UNAUTHORIZED',
    );
    expectOk(await completeWithCode(api, newWallet.address, new TestUser(), codes[1]!));
  },
  CHILD_PROCESS_TEST_MS,
);

it(
  'a deletion killed mid-way is finished by the next process: wallet refused, sessions ended, group passed on, username held',
  async () => {
    let api = await start(true);
    const [alice, bob, groupId] = await chatting(api);
    await diesDuring(() => deleteAccountSigned(api, alice));

    api = await start(false);
    const bobAgain = expectOk(
      await api.post('/api/v1/initialize', await bob.user.initializeBody('sign-in')),
    );
    await passesEventually(async () =>
      expectFailure(
        await api.get(`/api/v1/messages?peer_address=${alice.user.address}`, {
          authorization: `Bearer ${bobAgain.access_token}`,
        }),
        404,
        'NOT_FOUND',
      ),
    );
    expectFailure(
      await api.post('/api/v1/initialize', await alice.user.initializeBody('sign-in')),
      403,
      'ACCOUNT_CLOSED',
    );
    expectFailure(await api.listSessions(alice.accessToken), 401, 'UNAUTHORIZED');
    await passesEventually(async () =>
      expect(running!.output()).toContain('account walk finished'),
    );
    // The group stays, with its ownership passed to the remaining member.
    expect(await groupSeenBy(api, bobAgain.access_token, groupId)).toEqual({
      owner: bob.user.address.toLowerCase(),
      members: [{ address: bob.user.address.toLowerCase(), role: 'owner' }],
    });
    // The deleted account's username is held: nobody else may take it.
    expectFailure(
      await api.post(
        '/api/v1/update-username',
        { username: alice.user.username },
        { authorization: `Bearer ${bobAgain.access_token}` },
      ),
      409,
      'CONFLICT',
    );
  },
  CHILD_PROCESS_TEST_MS,
);
