/**
 * Sender keys: every member opens a group message from the distribution alone, in and out of
 * order within MAX_SKIP; a replay, a message too far ahead, a tampered or re-signed message, one
 * forged by a member holding the chain key, and one replayed into another group or under another
 * sender are refused; an opened message's key is gone.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import {
  distributionOf,
  newSenderKey,
  receivedFrom,
  senderKeyDecrypt,
  senderKeyEncrypt,
} from '../../src/crypto/sender-keys.js';
import type { OwnSenderKey, ReceivedSenderKey } from '../../src/crypto/sender-keys.js';
import { MAX_SKIP } from '../../src/crypto/symmetric-chain.js';
import { refusal } from './support/refusal.js';

const GROUP = 'group-1';
const ALICE = '0xa11ce';
const text = (value: string) => new TextEncoder().encode(value);
const read = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

class Sender {
  key: OwnSenderKey = newSenderKey();
  send(value: string, group = GROUP): Uint8Array {
    const { key, message } = senderKeyEncrypt(this.key, group, ALICE, text(value));
    this.key = key;
    return message;
  }
}

class Member {
  constructor(public key: ReceivedSenderKey) {}
  receive(message: Uint8Array, group = GROUP, sender = ALICE): string {
    const { key, plaintext } = senderKeyDecrypt(this.key, group, sender, message);
    this.key = key;
    return read(plaintext);
  }
}

const groupOfTwo = () => {
  const alice = new Sender();
  return { alice, bob: new Member(receivedFrom(distributionOf(GROUP, alice.key))) };
};

describe('sender keys', () => {
  it('open in order and out of order; a member joining later reads only what follows', () => {
    const { alice, bob } = groupOfTwo();
    const [one, two, three] = [alice.send('one'), alice.send('two'), alice.send('three')];
    expect(bob.receive(one)).toBe('one');
    expect(bob.receive(three)).toBe('three');
    expect(bob.receive(two)).toBe('two');
    const carol = new Member(receivedFrom(distributionOf(GROUP, alice.key)));
    expect(refusal(() => carol.receive(one))).toBe('DUPLICATE_MESSAGE');
    expect(carol.receive(alice.send('four'))).toBe('four');
  });

  it('skip up to MAX_SKIP lost messages and refuse one further ahead', () => {
    const { alice, bob } = groupOfTwo();
    const sent = Array.from({ length: MAX_SKIP + 2 }, (_, i) => alice.send(`m${i}`));
    const before = bob.key;
    expect(refusal(() => bob.receive(sent[MAX_SKIP + 1]!))).toBe('TOO_MANY_SKIPPED');
    expect(bob.key).toBe(before);
    expect(bob.receive(sent[MAX_SKIP]!)).toBe(`m${MAX_SKIP}`);
    expect(bob.receive(sent[3]!)).toBe('m3');
  });

  it('refuse a replay, a tampered message, a forgery and a message moved to another group or sender', () => {
    const { alice, bob } = groupOfTwo();
    const message = alice.send('authentic');
    const tampered = message.slice();
    tampered[20]! ^= 0x01; // inside the AEAD ciphertext, under the signature
    expect(refusal(() => bob.receive(tampered))).toBe('AUTHENTICATION_FAILED');
    // Bob holds the chain key: he can encrypt, but cannot sign as Alice.
    const forger = { ...alice.key, signing: newSenderKey().signing };
    const forged = senderKeyEncrypt(forger, GROUP, ALICE, text('forged')).message;
    expect(refusal(() => bob.receive(forged))).toBe('AUTHENTICATION_FAILED');
    // Re-signing a changed message with a key Bob does not trust fails too.
    const body = message.subarray(0, message.length - 64);
    const resigned = new Uint8Array([
      ...body,
      ...ed25519.sign(body, ed25519.utils.randomSecretKey()),
    ]);
    expect(refusal(() => bob.receive(resigned))).toBe('AUTHENTICATION_FAILED');
    expect(refusal(() => bob.receive(message, 'group-2'))).toBe('AUTHENTICATION_FAILED');
    expect(refusal(() => bob.receive(message, GROUP, '0xb0b'))).toBe('AUTHENTICATION_FAILED');
    expect(bob.receive(message)).toBe('authentic');
    expect(refusal(() => bob.receive(message))).toBe('DUPLICATE_MESSAGE');
  });

  it('refuse a message of another sender key id', () => {
    const { bob } = groupOfTwo();
    expect(refusal(() => bob.receive(new Sender().send('other key')))).toBe('NO_SESSION');
  });
});
