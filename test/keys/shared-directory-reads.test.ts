/**
 * Fetches of one owner share the DHT read in flight on their process, and sharing never serves
 * a replaced bundle: a read that started before a publish was acknowledged is not taken by a
 * fetch that arrived after it unless it found that fetch's current record, and a record older
 * than the verified copy never displaces it. The directory is the in-process one with the
 * keys area's real rules, held at its read so that a publish can land while a read is in flight.
 */
import { Registry } from 'prom-client';
import { KeyRecordVerifier } from '../../src/keys/directory/key-record-rules.js';
import { SharedDirectoryReads } from '../../src/keys/directory/shared-directory-reads.js';
import { VerifiedDirectoryCopies } from '../../src/keys/directory/verified-copies.js';
import { encodeSignedBundle } from '../../src/keys/bundle/signed-bundle.js';
import type { SignedBundle } from '../../src/keys/bundle/signed-bundle.js';
import { createKeysMetrics, phaseTimer } from '../../src/keys/keys-metrics.js';
import { LocalRecordDirectory } from '../../src/platform/dht/local-directory.js';
import { KeyOwner } from '../support/key-bundles.js';
import { TestUser } from '../support/wallet.js';

/** The in-process directory, counting its reads; a read returns what it found when it began, once released. */
class HeldDirectory extends LocalRecordDirectory {
  reads = 0;
  private held: Promise<void> = Promise.resolve();
  private releaseHeld = () => {};

  hold(): void {
    this.held = new Promise((resolve) => (this.releaseHeld = resolve));
  }

  release(): void {
    this.releaseHeld();
    this.held = Promise.resolve();
  }

  override async get(key: string): Promise<Uint8Array | undefined> {
    this.reads++;
    const found = await super.get(key);
    await this.held;
    return found;
  }
}

function setUp() {
  const verifier = new KeyRecordVerifier('Service');
  const directory = new HeldDirectory(verifier.rules());
  const copies = new VerifiedDirectoryCopies();
  const reads = new SharedDirectoryReads(directory, verifier, copies);
  const timed = phaseTimer(createKeysMetrics(new Registry()));
  return { directory, copies, read: reads.read.bind(reads), timed };
}

async function signed(owner: KeyOwner, signedPreKeyTimestamp?: number): Promise<SignedBundle> {
  const { oneTimePreKeys: _prekeys, ...bundle } = await owner.bundle({ signedPreKeyTimestamp });
  return { address: owner.address, ...bundle };
}

/** Lets every pending promise reaction run (the reads are in flight, held). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

it('makes one DHT read for the fetches of an owner that arrive while it is in flight', async () => {
  const { directory, read, timed } = setUp();
  const [alice, bob] = [new KeyOwner(new TestUser()), new KeyOwner(new TestUser())];
  const [aliceBundle, bobBundle] = [await signed(alice), await signed(bob)];
  await directory.put(alice.address, encodeSignedBundle(aliceBundle));
  await directory.put(bob.address, encodeSignedBundle(bobBundle));
  const current = encodeSignedBundle(aliceBundle);

  directory.hold();
  const fetches = Array.from({ length: 20 }, () => read(alice.address, current, timed));
  const bobsFetch = read(bob.address, undefined, timed);
  await settle();
  directory.release();

  for (const served of await Promise.all(fetches)) expect(served?.bundle).toEqual(aliceBundle);
  expect((await bobsFetch)?.bundle).toEqual(bobBundle);
  expect(directory.reads).toBe(2);
});

it('does not hand a read that started before a publish to a fetch that arrived after it, and keeps the new record', async () => {
  const { directory, copies, read, timed } = setUp();
  const carol = new KeyOwner(new TestUser());
  const first = await signed(carol);
  const second = await signed(carol, first.signedPreKey.timestamp + 1);
  await directory.put(carol.address, encodeSignedBundle(first));

  directory.hold();
  const before = read(carol.address, encodeSignedBundle(first), timed);
  await settle();
  // The publish lands (stored, then written to the directory) while that read is in flight.
  await directory.put(carol.address, encodeSignedBundle(second));
  const after = read(carol.address, encodeSignedBundle(second), timed);
  // Also a fetch on a node whose store does not hold the bundle: no current record to compare.
  const afterWithoutStore = read(carol.address, undefined, timed);
  await settle();
  directory.release();

  // The read in flight found the first record: the fetch that arrived before the publish may
  // take it, the later ones wait for a read of their own.
  expect((await before)?.bundle).toEqual(first);
  expect((await after)?.bundle).toEqual(second);
  expect((await afterWithoutStore)?.bundle).toEqual(second);
  expect(directory.reads).toBe(2);
  expect(copies.matching(carol.address, encodeSignedBundle(second))).toEqual(second);
  expect(copies.matching(carol.address, encodeSignedBundle(first))).toBeUndefined();
});

it("takes a read that started before it arrived when it found the store's current record", async () => {
  const { directory, read, timed } = setUp();
  const dave = new KeyOwner(new TestUser());
  const bundle = await signed(dave);
  const current = encodeSignedBundle(bundle);
  await directory.put(dave.address, current);

  directory.hold();
  const first = read(dave.address, current, timed);
  await settle();
  const joined = read(dave.address, current, timed);
  await settle();
  directory.release();

  expect((await first)?.bundle).toEqual(bundle);
  expect((await joined)?.bundle).toEqual(bundle);
  expect(directory.reads).toBe(1);
});

it('keeps the newer verified copy when a read finds an older record (a peer that missed the publish)', async () => {
  const copies = new VerifiedDirectoryCopies();
  const erin = new KeyOwner(new TestUser());
  const older = await signed(erin);
  const newer = await signed(erin, older.signedPreKey.timestamp + 1);
  copies.remember(erin.address, encodeSignedBundle(newer), newer);
  copies.remember(erin.address, encodeSignedBundle(older), older);
  expect(copies.matching(erin.address, encodeSignedBundle(newer))).toEqual(newer);
  expect(copies.matching(erin.address, encodeSignedBundle(older))).toBeUndefined();
});
