/**
 * The Double Ratchet's properties (Signal's specification): messages open in order, out of
 * order and after losses within MAX_SKIP; a message too far ahead, a tampered header or body, and
 * a replay are refused without harming the session; used keys are gone (forward secrecy) and a
 * new DH ratchet step locks out whoever stole an earlier state (post-compromise security).
 */
import { ratchetDecrypt, ratchetEncrypt, HEADER_BYTES } from '../../src/crypto/double-ratchet.js';
import type { RatchetState } from '../../src/crypto/double-ratchet.js';
import { aeadOpen } from '../../src/crypto/aead.js';
import { advanceChain, MAX_SKIP } from '../../src/crypto/symmetric-chain.js';
import { deserializeState, serializeState } from '../../src/crypto/key-store.js';
import { ratchetPair } from './support/ratchet-pair.js';
import { refusal } from './support/refusal.js';

const text = (value: string) => new TextEncoder().encode(value);
const read = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** One side of a conversation: sends and receives through its evolving state. */
class Party {
  constructor(public state: RatchetState) {}

  send(value: string): Uint8Array {
    const { state, message } = ratchetEncrypt(this.state, text(value));
    this.state = state;
    return message;
  }

  receive(message: Uint8Array): string {
    const { state, plaintext } = ratchetDecrypt(this.state, message);
    this.state = state;
    return read(plaintext);
  }
}

const parties = () => {
  const { alice, bob } = ratchetPair();
  return { alice: new Party(alice), bob: new Party(bob) };
};

describe('Double Ratchet', () => {
  it('opens a conversation in order across many DH ratchet steps', () => {
    const { alice, bob } = parties();
    for (let round = 0; round < 5; round++) {
      expect(bob.receive(alice.send(`a${round}`))).toBe(`a${round}`);
      expect(bob.receive(alice.send(`a${round}'`))).toBe(`a${round}'`);
      expect(alice.receive(bob.send(`b${round}`))).toBe(`b${round}`);
    }
  });

  it('opens messages out of order, within a chain and across ratchet steps', () => {
    const { alice, bob } = parties();
    const first = [alice.send('1'), alice.send('2'), alice.send('3')];
    expect(bob.receive(first[2]!)).toBe('3');
    const reply = bob.send('reply');
    expect(alice.receive(reply)).toBe('reply');
    const second = alice.send('4'); // a new chain: its header's PN says 3 came before
    expect(bob.receive(second)).toBe('4');
    expect(bob.receive(first[0]!)).toBe('1');
    expect(bob.receive(first[1]!)).toBe('2');
  });

  it('skips lost messages up to MAX_SKIP and refuses one beyond, leaving the session intact', () => {
    const { alice, bob } = parties();
    const sent = Array.from({ length: MAX_SKIP + 2 }, (_, i) => alice.send(`m${i}`));
    // m0..m999 lost: m1000 is exactly MAX_SKIP ahead.
    expect(bob.receive(sent[MAX_SKIP]!)).toBe(`m${MAX_SKIP}`);
    expect(bob.receive(sent[7]!)).toBe('m7');

    const fresh = parties();
    const far = Array.from({ length: MAX_SKIP + 2 }, (_, i) => fresh.alice.send(`m${i}`));
    const before = fresh.bob.state;
    expect(refusal(() => fresh.bob.receive(far[MAX_SKIP + 1]!))).toBe('TOO_MANY_SKIPPED');
    expect(fresh.bob.state).toBe(before);
    expect(fresh.bob.receive(far[0]!)).toBe('m0');
  });

  it('refuses every single-bit change of the header or the body, and still opens the original', () => {
    const { alice, bob } = parties();
    bob.receive(alice.send('warm up'));
    alice.receive(bob.send('reply'));
    const message = alice.send('tamper with me');
    const positions = [
      ...Array.from({ length: HEADER_BYTES }, (_, i) => i),
      HEADER_BYTES,
      message.length - 1,
    ];
    for (const position of positions) {
      const tampered = message.slice();
      tampered[position]! ^= 0x01;
      expect(refusal(() => bob.receive(tampered))).not.toBe('accepted');
    }
    expect(bob.receive(message)).toBe('tamper with me');
  });

  it('refuses a replay, in order or of a message first opened out of order', () => {
    const { alice, bob } = parties();
    const [one, two] = [alice.send('one'), alice.send('two')];
    expect(bob.receive(two)).toBe('two');
    expect(bob.receive(one)).toBe('one');
    expect(refusal(() => bob.receive(one))).toBe('DUPLICATE_MESSAGE');
    expect(refusal(() => bob.receive(two))).toBe('DUPLICATE_MESSAGE');
  });

  it('keeps nothing from which an opened message could be opened again (forward secrecy)', () => {
    const { alice, bob } = parties();
    const message = alice.send('gone once read');
    bob.receive(message);
    bob.receive(alice.send('a later one'));
    const stolen = deserializeState<RatchetState>(serializeState(bob.state));
    expect(refusal(() => ratchetDecrypt(stolen, message))).not.toBe('accepted');
    // Every secret the stolen state holds, as a message key or as a chain key run forward, fails.
    const secrets: Uint8Array[] = [];
    const collect = (value: unknown) => {
      if (value instanceof Uint8Array) secrets.push(value);
      else if (value && typeof value === 'object') Object.values(value).forEach(collect);
    };
    collect(stolen);
    const ad = new Uint8Array([...stolen.associatedData, ...message.subarray(0, HEADER_BYTES)]);
    const body = message.subarray(HEADER_BYTES);
    for (const secret of secrets) {
      let chainKey = secret;
      const candidates = [secret];
      for (let step = 0; step < 4; step++) {
        const next = advanceChain(chainKey);
        candidates.push(next.messageKey);
        chainKey = next.chainKey;
      }
      for (const candidate of candidates)
        expect(refusal(() => aeadOpen(candidate, 'E2EE v1 MessageKeys', body, ad))).toBe(
          'AUTHENTICATION_FAILED',
        );
    }
  });

  it('locks out a stolen state once both sides have made a new DH ratchet step', () => {
    const { alice, bob } = parties();
    bob.receive(alice.send('before'));
    const stolen = new Party(deserializeState<RatchetState>(serializeState(bob.state)));
    alice.receive(bob.send('b1'));
    const stillExposed = alice.send('a2');
    bob.receive(stillExposed);
    alice.receive(bob.send('b2')); // Bob's new ratchet key, made after the theft
    const healed = alice.send('a3');
    // The thief follows the traffic: with Bob's old ratchet secret it reads a2, not a3.
    expect(stolen.receive(stillExposed)).toBe('a2');
    expect(refusal(() => stolen.receive(healed))).toBe('AUTHENTICATION_FAILED');
    expect(bob.receive(healed)).toBe('a3');
  });
});
