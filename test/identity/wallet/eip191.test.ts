import { Signature, Wallet, hashMessage, hexlify } from 'ethers';
import {
  canonicalSignature,
  personalMessageHash,
  recoverPersonalSignAddress,
} from '../../../src/identity/wallet/eip191.js';
import { CURVE_ORDER, highSTwin, signatureHex } from './sign-in-fixtures.js';

const signer = new Wallet(`0x${'42'.repeat(32)}`);
const ADDRESS = signer.address.toLowerCase();
const MESSAGES = [
  'hello',
  '',
  'line one\nline two',
  'café',
  'Username: josé 🦊',
  '你好，世界',
  'tab\there',
];

/** The same signature in every spelling the contract allows. */
function spellings(signature: string): string[] {
  const v = signature.slice(-2);
  const bare = signature.slice(2, -2);
  const bit = v === '1b' ? '00' : '01';
  return [
    signature,
    signature.slice(2),
    `0x${bare.toUpperCase()}${v}`,
    `0x${bare}${bit}`,
    `${bare.toUpperCase()}${bit}`,
  ];
}

const SECP256K1_P = 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn;

function modPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n;
  for (let b = base % modulus, e = exponent; e > 0n; e >>= 1n, b = (b * b) % modulus)
    if (e & 1n) result = (result * b) % modulus;
  return result;
}

/** The smallest r for which x = r is not on the curve (x^3 + 7 is not a square mod p). */
function offCurveX(): bigint {
  for (let x = 1n; ; x++)
    if (modPow(x ** 3n + 7n, (SECP256K1_P - 1n) / 2n, SECP256K1_P) === SECP256K1_P - 1n) return x;
}

describe('personalMessageHash', () => {
  it.each(MESSAGES)(
    'matches ethers.hashMessage for %p (length prefix in UTF-8 bytes)',
    (message) => {
      expect(hexlify(personalMessageHash(message))).toBe(hashMessage(message));
    },
  );
});

describe('recoverPersonalSignAddress', () => {
  it.each(MESSAGES)('recovers the ethers signer of %p', async (message) => {
    const signature = await signer.signMessage(message);
    expect(recoverPersonalSignAddress(message, signature)).toEqual({
      ok: true,
      address: ADDRESS,
      canonical: canonicalFromEthers(signature),
    });
  });

  it('recovers a different address for a different message', async () => {
    const signature = await signer.signMessage('hello');
    const result = recoverPersonalSignAddress('hello!', signature);
    expect(result.ok && result.address).not.toBe(ADDRESS);
  });

  it('recovers the same signer from every spelling of the signature', async () => {
    const signature = await signer.signMessage('café');
    for (const spelling of spellings(signature)) {
      expect(recoverPersonalSignAddress('café', spelling)).toMatchObject({
        ok: true,
        address: ADDRESS,
      });
    }
  });

  it('refuses the high-S twin of a valid signature', async () => {
    const signature = await signer.signMessage('hello');
    expect(recoverPersonalSignAddress('hello', signature).ok).toBe(true);
    expect(recoverPersonalSignAddress('hello', highSTwin(signature))).toMatchObject({
      ok: false,
      code: 'HIGH_S',
    });
  });

  it.each([
    ['empty', ''],
    ['only 0x', '0x'],
    ['64 bytes', `0x${'11'.repeat(64)}`],
    ['66 bytes', `0x${'11'.repeat(66)}`],
    ['odd length', `0x${'1'.repeat(129)}`],
    ['non-hex digit', `0x${'1'.repeat(129)}g`],
    ['0X prefix', `0X${'11'.repeat(64)}1b`],
    ['surrounding space', ` 0x${'11'.repeat(64)}1b`],
    ['double prefix', `0x0x${'11'.repeat(64)}1b`],
  ])('refuses a malformed signature (%s)', (_case, signature) => {
    expect(recoverPersonalSignAddress('hello', signature)).toMatchObject({
      ok: false,
      code: 'MALFORMED_SIGNATURE',
    });
  });

  it.each([2, 3, 26, 29, 35, 37, 255])('refuses v = %i', async (v) => {
    const { r, s } = Signature.from(await signer.signMessage('hello'));
    expect(
      recoverPersonalSignAddress('hello', signatureHex(BigInt(r), BigInt(s), v)),
    ).toMatchObject({
      ok: false,
      code: 'INVALID_RECOVERY_ID',
    });
  });

  it.each([
    ['r = 0', 0n, 1n],
    ['s = 0', 1n, 0n],
    ['r = n', CURVE_ORDER, 1n],
    ['s = n', 1n, CURVE_ORDER],
    ['r = 2^256 - 1', 2n ** 256n - 1n, 1n],
  ])('refuses scalars out of range (%s)', (_case, r, s) => {
    expect(recoverPersonalSignAddress('hello', signatureHex(r, s, 27))).toMatchObject({
      ok: false,
      code: 'SCALAR_OUT_OF_RANGE',
    });
  });

  it('refuses an r that is no point on the curve', () => {
    expect(recoverPersonalSignAddress('hello', signatureHex(offCurveX(), 1n, 27))).toMatchObject({
      ok: false,
      code: 'RECOVERY_FAILED',
    });
  });
});

function canonicalFromEthers(signature: string): string {
  const { r, s, yParity } = Signature.from(signature);
  return `${r.slice(2)}${s.slice(2)}0${yParity}`;
}

describe('canonicalSignature', () => {
  it('gives every spelling of a signature the same key: r ‖ s ‖ recovery bit, lowercase, no 0x', async () => {
    for (const message of ['hello', 'café']) {
      const signature = await signer.signMessage(message);
      const expected = canonicalFromEthers(signature);
      expect(expected).toMatch(/^[0-9a-f]{128}0[01]$/);
      for (const spelling of spellings(signature))
        expect(canonicalSignature(spelling)).toEqual({ ok: true, canonical: expected });
    }
  });

  it('gives different signatures different keys', async () => {
    const a = canonicalSignature(await signer.signMessage('a'));
    const b = canonicalSignature(await signer.signMessage('b'));
    expect(a.ok && b.ok && a.canonical !== b.canonical).toBe(true);
  });

  it('draws the low-S line at floor(n / 2) (EIP-2)', () => {
    const half = CURVE_ORDER >> 1n;
    expect(canonicalSignature(signatureHex(1n, half, 27)).ok).toBe(true);
    expect(canonicalSignature(signatureHex(1n, half + 1n, 27))).toMatchObject({
      ok: false,
      code: 'HIGH_S',
    });
  });

  it('refuses what recovery refuses', () => {
    expect(canonicalSignature('0x1234')).toMatchObject({ ok: false, code: 'MALFORMED_SIGNATURE' });
    expect(canonicalSignature(signatureHex(1n, 1n, 29))).toMatchObject({
      ok: false,
      code: 'INVALID_RECOVERY_ID',
    });
  });
});
