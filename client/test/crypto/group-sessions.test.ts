/**
 * Who receives a sender key: each member once, and everyone anew (with a new key) after a member
 * who held the current one left, so that the departed member cannot read what follows.
 */
import { GroupSessions } from '../../src/crypto/group-sessions.js';
import { E2eeError } from '../../src/crypto/e2ee-error.js';
import { MemoryKeyStore, StateRecords } from '../../src/crypto/key-store.js';
import type { SenderKeyDistribution } from '../../src/crypto/sender-keys.js';

const [ALICE, BOB, CAROL] = ['0xa11ce', '0xb0b', '0xca201'];
const text = (value: string) => new TextEncoder().encode(value);

describe('group sender-key distribution', () => {
  it('distributes once per member and rotates when a holder leaves', async () => {
    const alice = new GroupSessions(new StateRecords(new MemoryKeyStore()), ALICE);
    const receivers = new Map(
      [BOB, CAROL].map((member) => [
        member,
        new GroupSessions(new StateRecords(new MemoryKeyStore()), member),
      ]),
    );
    const distributed: string[] = [];
    const distribute = async (member: string, distribution: SenderKeyDistribution) => {
      distributed.push(member);
      await receivers.get(member)!.receiveDistribution(ALICE, distribution);
    };
    const open = (member: string, message: Uint8Array) =>
      receivers
        .get(member)!
        .decrypt('g', ALICE, message)
        .then((bytes) => new TextDecoder().decode(bytes));

    const first = await alice.encrypt(
      'g',
      [ALICE, BOB, CAROL.toUpperCase()],
      text('1'),
      distribute,
    );
    const second = await alice.encrypt('g', [ALICE, BOB, CAROL], text('2'), distribute);
    expect(distributed).toEqual([BOB, CAROL]);
    expect(await open(CAROL, first)).toBe('1');
    expect(await open(BOB, second)).toBe('2');

    const afterCarolLeft = await alice.encrypt('g', [ALICE, BOB], text('3'), distribute);
    expect(distributed).toEqual([BOB, CAROL, BOB]);
    expect(await open(BOB, afterCarolLeft)).toBe('3');
    await expect(open(CAROL, afterCarolLeft)).rejects.toThrow(E2eeError);
  });
});
