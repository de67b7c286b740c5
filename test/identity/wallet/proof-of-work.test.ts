import { createHash } from 'node:crypto';
import {
  hasProofOfWork,
  isWellFormedPowNonce,
  solveProofOfWork,
} from '../../../src/identity/wallet/proof-of-work.js';
import { SERVICE, message } from './sign-in-fixtures.js';

const MESSAGE = message('registration compact', {
  wallet: `0x${'ab'.repeat(20)}`,
  username: 'josé',
  name: 'Zoë 🦊',
});

/** Leading zero bits of sha256(message ‖ nonce), counted with node:crypto as an independent oracle. */
function zeroBits(text: string, nonce: string): number {
  const digest = createHash('sha256')
    .update(Buffer.from(text, 'utf8'))
    .update(Buffer.from(nonce, 'utf8'))
    .digest();
  let bits = 0;
  for (const byte of digest) {
    if (byte !== 0) return bits + Math.clz32(byte) - 24;
    bits += 8;
  }
  return bits;
}

describe('proof of work', () => {
  it.each([8, 12])('a solved nonce passes at %i bits and is decimal digits', (bits) => {
    const nonce = solveProofOfWork(MESSAGE, bits);
    expect(nonce).toMatch(/^[0-9]+$/);
    expect(zeroBits(MESSAGE, nonce)).toBeGreaterThanOrEqual(bits);
    expect(hasProofOfWork(MESSAGE, nonce, bits)).toBe(true);
  });

  it('agrees with an independent count of leading zero bits, bit for bit', () => {
    for (let i = 0; i < 300; i++) {
      const nonce = `n${i}`;
      const actual = zeroBits(MESSAGE, nonce);
      expect(hasProofOfWork(MESSAGE, nonce, actual)).toBe(true);
      expect(hasProofOfWork(MESSAGE, nonce, actual + 1)).toBe(false);
    }
  });

  it('fails a wrong nonce, and the right nonce for another message', () => {
    const nonce = solveProofOfWork(MESSAGE, 12);
    const candidates: Array<[string, string]> = [
      [MESSAGE, ''],
      [MESSAGE, 'x'],
      [MESSAGE, `${nonce}0`],
      [`${MESSAGE}1`, nonce],
      [MESSAGE.replace('josé', 'jose'), nonce],
    ];
    const verdicts = candidates.map(([text, candidate]) => hasProofOfWork(text, candidate, 12));
    expect(verdicts).toEqual(
      candidates.map(([text, candidate]) => zeroBits(text, candidate) >= 12),
    );
    expect(verdicts).toContain(false);
  });

  it('always passes at 0 bits (proof of work off)', () => {
    expect(hasProofOfWork(MESSAGE, '', 0)).toBe(true);
    expect(hasProofOfWork('', 'anything', 0)).toBe(true);
    expect(solveProofOfWork(MESSAGE, 0)).toBe('0');
  });

  it('hashes message and nonce as separate UTF-8 strings', () => {
    // A lone high surrogate ending the message must not pair with a low surrogate starting the
    // nonce; pick a nonce where pairing them would change the count, so the check can tell.
    const text = `${SERVICE}\ud83e`;
    const nonce = ['', '1', '2', '3', '4', '5', '6', '7']
      .map((suffix) => `\udd8a${suffix}`)
      .find(
        (candidate) => zeroBits(text, candidate) !== zeroBits(`${text}${candidate}`, ''),
      ) as string;
    const bits = zeroBits(text, nonce);
    expect(hasProofOfWork(text, nonce, bits)).toBe(true);
    expect(hasProofOfWork(text, nonce, bits + 1)).toBe(false);
  });

  it.each([-1, 1.5, 257, Number.NaN])('throws on the difficulty %p', (bits) => {
    expect(() => hasProofOfWork(MESSAGE, '0', bits)).toThrow(RangeError);
    expect(() => solveProofOfWork(MESSAGE, bits)).toThrow(RangeError);
  });

  it.each([
    ['0', true],
    ['18446744073709551615', true],
    ['a'.repeat(64), true],
    ['~ !', true],
    ['', false],
    ['a'.repeat(65), false],
    ['tab\there', false],
    ['é', false],
    ['line\n', false],
  ])('nonce %p is well formed: %p', (nonce, expected) => {
    expect(isWellFormedPowNonce(nonce)).toBe(expected);
  });
});
