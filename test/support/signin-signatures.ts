/**
 * Other spellings and forms of an ethers personal_sign signature (`0x` + r + s + v, v 27/28),
 * for the signature and replay e2e tests. Independent of the service's code: the curve maths
 * comes from @noble/curves and ethers, not from src/.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { computeAddress, getBytes, hashMessage, hexlify } from 'ethers';
import { CURVE_ORDER, highSTwin } from '../identity/wallet/sign-in-fixtures.js';

export { CURVE_ORDER, highSTwin };

interface SignatureParts {
  r: bigint;
  s: bigint;
  v: number;
}

export function splitSignature(signature: string): SignatureParts {
  const hex = signature.replace(/^0x/i, '');
  if (!/^[0-9a-fA-F]{130}$/.test(hex)) throw new Error(`not a 65-byte signature: ${signature}`);
  return {
    r: BigInt(`0x${hex.slice(0, 64)}`),
    s: BigInt(`0x${hex.slice(64, 128)}`),
    v: Number.parseInt(hex.slice(128), 16),
  };
}

/** The same signature in the spellings the contract says are one signature (check 5). */
export function respellings(
  signature: string,
): Record<'uppercase hex' | 'without 0x' | 'v as recovery bit', string> {
  const hex = signature.slice(2);
  const { v } = splitSignature(signature);
  if (v !== 27 && v !== 28) throw new Error(`expected v 27 or 28 from ethers, got ${v}`);
  return {
    'uppercase hex': `0x${hex.toUpperCase()}`,
    'without 0x': hex,
    'v as recovery bit': `0x${hex.slice(0, 128)}0${v - 27}`,
  };
}

/**
 * The signer of an EIP-191 message, recovered without the low-S rule (ethers refuses high-S
 * input), so a test can show that a high-S twin really is a valid signature of the same wallet.
 */
export function recoverAllowingHighS(message: string, signature: string): string {
  const { r, s, v } = splitSignature(signature);
  const recovered = new secp256k1.Signature(r, s, v - 27).recoverPublicKey(
    getBytes(hashMessage(message)),
  );
  return computeAddress(hexlify(recovered.toBytes(false)));
}

/** Whether s is in the upper half of the curve order (the EIP-2 "high-S" form). */
export const isHighS = (signature: string): boolean =>
  splitSignature(signature).s > CURVE_ORDER / 2n;
