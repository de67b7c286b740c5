/**
 * The rules every DHT node applies to key records: only the owner's correctly signed record for
 * its own address is valid (also once a valid record of that owner has been remembered), and of
 * several valid records the newest is chosen.
 */
import {
  InvalidKeyRecordError,
  KeyRecordVerifier,
} from '../../src/keys/directory/key-record-rules.js';
import { KeyOwner } from '../support/key-bundles.js';
import { TestUser } from '../support/wallet.js';

const record = (value: object) => new TextEncoder().encode(JSON.stringify(value));

async function signedRecord(owner: KeyOwner, options: Parameters<KeyOwner['bundle']>[0] = {}) {
  const { oneTimePreKeys: _prekeys, ...signed } = await owner.bundle(options);
  return { address: owner.address, ...signed };
}

it("accepts the owner's record for their address only, and nothing forged, before or after remembering it", async () => {
  const verifier = new KeyRecordVerifier('Service');
  const owner = new KeyOwner(new TestUser());
  const genuine = await signedRecord(owner);
  const other = new TestUser().address.toLowerCase();
  expect(verifier.verify(owner.address, record(genuine))).toEqual(genuine);
  expect(verifier.verify(owner.address, record(genuine))).toEqual(genuine);
  const forgeries = [
    [other, genuine],
    [
      owner.address,
      { ...genuine, identityKey: (await new KeyOwner(new TestUser()).bundle()).identityKey },
    ],
    [owner.address, { ...genuine, registrationId: genuine.registrationId + 1 }],
    [
      owner.address,
      {
        ...genuine,
        signedPreKey: { ...genuine.signedPreKey, timestamp: genuine.signedPreKey.timestamp + 1 },
      },
    ],
    [
      owner.address,
      {
        ...genuine,
        walletBinding: { ...genuine.walletBinding, timestamp: genuine.walletBinding.timestamp + 1 },
      },
    ],
    [owner.address, { not: 'a bundle' }],
  ] as const;
  for (const [address, value] of forgeries)
    expect(() => verifier.verify(address, record(value))).toThrow(InvalidKeyRecordError);
  expect(() => verifier.verify(owner.address, new TextEncoder().encode('{not json'))).toThrow(
    InvalidKeyRecordError,
  );
});

it('chooses the newest of several valid records: the later wallet binding, then the later signed prekey', async () => {
  const rules = new KeyRecordVerifier('Service', 2).rules();
  const owner = new KeyOwner(new TestUser());
  const now = Date.now();
  const older = await signedRecord(owner, {
    bindingTimestamp: now - 10_000,
    signedPreKeyTimestamp: now,
  });
  const rotated = await signedRecord(owner, {
    bindingTimestamp: now - 10_000,
    signedPreKeyTimestamp: now + 1,
  });
  const rebound = await signedRecord(owner, {
    bindingTimestamp: now,
    signedPreKeyTimestamp: now - 1,
  });
  expect(rules.select(owner.address, [record(older), record(rotated)])).toBe(1);
  expect(rules.select(owner.address, [record(rebound), record(rotated), record(older)])).toBe(0);
  // A verifier remembering fewer records than it sees still checks each correctly.
  expect(() =>
    rules.validate(owner.address, record({ ...older, bundleSignature: rotated.bundleSignature })),
  ).toThrow(InvalidKeyRecordError);
});
