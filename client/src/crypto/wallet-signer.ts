/**
 * The wallet as the key binding needs it: an address and EIP-191 `personal_sign`. A browser
 * wallet, viem's `privateKeyToAccount` or ethers' `Wallet` fit behind it in a line.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { concatBytes, utf8ToBytes } from './bytes.js';

export interface WalletSigner {
  /** The wallet address (`0x` plus 40 hex digits, any case). */
  readonly address: string;
  /** The EIP-191 personal_sign signature of `message`: `0x` plus 130 hex digits. */
  signMessage(message: string): Promise<string>;
}

/**
 * The address whose key made an EOA's `personal_sign` signature over `message`, lowercase; `null`
 * when the signature is malformed. (Contract-wallet signatures, ERC-1271/6492, need a chain call
 * and are not checked here.)
 */
export function recoverPersonalSigner(message: string, signature: string): string | null {
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) return null;
  const bytes = hexToBytes(signature.slice(2));
  const v = bytes[64]!;
  const recovery = v >= 27 ? v - 27 : v;
  if (recovery !== 0 && recovery !== 1) return null;
  const text = utf8ToBytes(message);
  const digest = keccak_256(
    concatBytes(utf8ToBytes(`\x19Ethereum Signed Message:\n${text.length}`), text),
  );
  try {
    const compressed = secp256k1.recoverPublicKey(
      concatBytes(Uint8Array.of(recovery), bytes.subarray(0, 64)),
      digest,
      { prehash: false },
    );
    const uncompressed = secp256k1.Point.fromBytes(compressed).toBytes(false);
    return `0x${bytesToHex(keccak_256(uncompressed.subarray(1)).subarray(12))}`;
  } catch {
    return null;
  }
}
