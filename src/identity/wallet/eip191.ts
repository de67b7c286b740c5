/**
 * EIP-191 personal_sign: the one place that turns a signed message into its signer's address
 * (wallet sign-in, X-Signature signed requests, recovery guardian decisions, key-bundle wallet
 * bindings). The public-key recovery is libsecp256k1 compiled to WebAssembly (tiny-secp256k1,
 * no install script, no per-platform binary), several times faster than pure-JS curve
 * arithmetic; the checks that decide what is accepted (hex shape, v, scalar range, low S) are
 * made here, before it, so the error codes do not depend on the library.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, concatBytes, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { recover } from 'tiny-secp256k1';

export type SignatureFailureCode =
  /** Not 65 bytes of hex (130 hex digits, optional `0x`). */
  | 'MALFORMED_SIGNATURE'
  /** The last byte is not 0, 1, 27 or 28. */
  | 'INVALID_RECOVERY_ID'
  /** r or s is 0 or not below the curve order. */
  | 'SCALAR_OUT_OF_RANGE'
  /** s above n/2: the malleable twin of a low-S signature (EIP-2). */
  | 'HIGH_S'
  /** No public key fits r, s and the recovery bit. */
  | 'RECOVERY_FAILED';

export interface SignatureFailure {
  ok: false;
  code: SignatureFailureCode;
  detail: string;
}

interface ParsedSignature {
  ok: true;
  r: bigint;
  s: bigint;
  recoveryBit: 0 | 1;
  /** r ‖ s as 64 bytes, what the recovery takes. */
  compact: Uint8Array;
}

const SIGNATURE_HEX = /^(?:0x)?([0-9a-fA-F]{130})$/;
/** n, the order of secp256k1's group. */
const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

function failure(code: SignatureFailureCode, detail: string): SignatureFailure {
  return { ok: false, code, detail };
}

/** Everything a personal_sign signature must satisfy before (and independently of) recovery. */
function parseSignature(signatureHex: string): ParsedSignature | SignatureFailure {
  const hex = SIGNATURE_HEX.exec(signatureHex)?.[1];
  if (hex === undefined) {
    return failure(
      'MALFORMED_SIGNATURE',
      'the signature must be 65 bytes as hex (130 hex digits, 0x optional)',
    );
  }
  const r = BigInt(`0x${hex.slice(0, 64)}`);
  const s = BigInt(`0x${hex.slice(64, 128)}`);
  const v = Number.parseInt(hex.slice(128), 16);
  // Wallets write v as 27/28 (Ethereum's legacy offset) or as the bare recovery bit 0/1; 2 and 3
  // (r overflowing the order) are never produced for secp256k1 in practice and are refused.
  const recoveryBit = v === 0 || v === 27 ? 0 : v === 1 || v === 28 ? 1 : undefined;
  if (recoveryBit === undefined) return failure('INVALID_RECOVERY_ID', 'v must be 0, 1, 27 or 28');
  if (r === 0n || r >= CURVE_ORDER || s === 0n || s >= CURVE_ORDER) {
    return failure('SCALAR_OUT_OF_RANGE', 'r and s must be between 1 and the curve order');
  }
  if (s > CURVE_ORDER >> 1n) {
    return failure(
      'HIGH_S',
      'the signature is in high-S form; only low-S signatures are accepted (EIP-2)',
    );
  }
  return { ok: true, r, s, recoveryBit, compact: hexToBytes(hex.slice(0, 128)) };
}

function encodeCanonical({ r, s, recoveryBit }: ParsedSignature): string {
  return `${r.toString(16).padStart(64, '0')}${s.toString(16).padStart(64, '0')}0${recoveryBit}`;
}

/**
 * The one spelling of a signature used as the replay-cache key: lowercase hex of r ‖ s ‖
 * recovery bit (0 or 1), no `0x`. Hex case, the `0x` prefix and v as 27/28 versus 0/1 are
 * spellings of the same signature and must not make a spent signature new (spec, check 5).
 */
export function canonicalSignature(
  signatureHex: string,
): { ok: true; canonical: string } | SignatureFailure {
  const parsed = parseSignature(signatureHex);
  return parsed.ok ? { ok: true, canonical: encodeCanonical(parsed) } : parsed;
}

/** keccak256("\x19Ethereum Signed Message:\n" + byte length + message), the length in UTF-8 bytes. */
export function personalMessageHash(message: string): Uint8Array {
  const body = utf8ToBytes(message);
  return keccak_256(concatBytes(utf8ToBytes(`\x19Ethereum Signed Message:\n${body.length}`), body));
}

/**
 * The lowercase address that signed `message` with EIP-191 personal_sign, together with the
 * canonical signature (so a caller needs to parse the signature only once).
 */
export function recoverPersonalSignAddress(
  message: string,
  signatureHex: string,
): { ok: true; address: string; canonical: string } | SignatureFailure {
  const parsed = parseSignature(signatureHex);
  if (!parsed.ok) return parsed;
  let publicKey: Uint8Array | null;
  try {
    publicKey = recover(personalMessageHash(message), parsed.compact, parsed.recoveryBit, false);
  } catch {
    // tiny-secp256k1 throws when r is not the x coordinate of a curve point.
    publicKey = null;
  }
  // null: libsecp256k1 found no key (e.g. the recovered point is the identity).
  if (publicKey === null)
    return failure('RECOVERY_FAILED', 'no public key can be recovered from the signature');
  // An Ethereum address is the last 20 bytes of keccak256 over the uncompressed key without its 0x04 tag.
  const address = `0x${bytesToHex(keccak_256(publicKey.subarray(1)).subarray(12))}`;
  return { ok: true, address, canonical: encodeCanonical(parsed) };
}
