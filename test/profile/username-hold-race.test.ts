/**
 * The one interleaving a unique index alone cannot settle: a claim of a name that another
 * account releases at the same moment. Bob checks `alice_name` (not held yet), Alice then
 * renames herself (holding `alice_name` for her), and only then does Bob take the name. Bob's
 * claim must see the hold afterwards and give the name back (409), so a released name is never
 * taken by someone else within its 30 days. The store is real; the test only orders the steps.
 */
import { Code } from '@connectrpc/connect';
import { AccountRepository } from '../../src/accounts/account-repository.js';
import { HeldUsernames } from '../../src/accounts/held-usernames.js';
import { Usernames } from '../../src/accounts/usernames.js';
import { accountsIndexes } from '../../src/accounts/accounts-area.js';
import type { DocumentStore } from '../../src/platform/store/document-store.js';
import { openEmbeddedStore } from '../support/stores-under-test.js';
import type { StoreUnderTest } from '../support/stores-under-test.js';

const ALICE = '0x' + 'a'.repeat(40);
const BOB = '0x' + 'b'.repeat(40);

/** Held names whose first check for `claimant` waits until `gate` opens (after it has read). */
class GatedHolds extends HeldUsernames {
  private gated = true;

  constructor(
    store: DocumentStore,
    private readonly claimant: string,
    private readonly gate: Promise<void>,
  ) {
    super(store);
  }

  override async isHeldAgainst(username: string, claimant: string): Promise<boolean> {
    const held = await super.isHeldAgainst(username, claimant);
    if (claimant === this.claimant && this.gated) {
      this.gated = false;
      await this.gate;
    }
    return held;
  }
}

let underTest: StoreUnderTest;
beforeEach(async () => {
  underTest = await openEmbeddedStore();
  await underTest.store.ensureIndexes(accountsIndexes);
});
afterEach(() => underTest.dispose());

it('a claim that passed its check before a release, and took the name after it, gives the name back with 409', async () => {
  const { store } = underTest;
  const accounts = new AccountRepository(store);
  for (const [address, username] of [
    [ALICE, 'alice_name'],
    [BOB, 'bob_name'],
  ] as const) {
    await accounts.create({
      _id: address,
      username,
      displayName: '',
      createdAt: new Date(),
      permissions: [],
      mfaEnabled: false,
      origin: 'wallet',
    });
  }
  let openGate!: () => void;
  const gate = new Promise<void>((resolve) => (openGate = resolve));
  const forBob = new Usernames(accounts, new GatedHolds(store, BOB, gate));
  const forAlice = new Usernames(accounts, new HeldUsernames(store));

  const bobClaim = forBob.change(BOB, 'alice_name'); // checks, finds no hold, waits at the gate
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(await forAlice.change(ALICE, 'alice_renamed')).toEqual({
    username: 'alice_renamed',
    changed: true,
  });
  openGate();

  await expect(bobClaim).rejects.toMatchObject({ code: Code.AlreadyExists });
  expect((await accounts.find(BOB))?.username).toBe('bob_name');
  expect(await accounts.findByUsername('alice_name')).toBeNull();
  expect(await forAlice.isHeldAgainst('alice_name', BOB)).toBe(true);
  // Alice may still take her name back.
  expect(await forAlice.change(ALICE, 'alice_name')).toEqual({
    username: 'alice_name',
    changed: true,
  });
});
