/**
 * The Double Ratchet as Signal specifies it (https://signal.org/docs/specifications/doubleratchet/),
 * "with header" in the clear: X25519 for the DH ratchet, KDF_RK = HKDF-SHA256(salt = RK,
 * ikm = DH output) into a new root and chain key, KDF_CK in symmetric-chain.ts, and the AEAD of
 * aead.ts over CONCAT(AD, header) with AD from X3DH. Header: the sender's ratchet public key
 * (32 bytes), PN and N (4 bytes each, big-endian).
 *
 * The functions are pure: each returns the next state and never changes the one it was given,
 * so a message that fails to open (tampered, replayed, too far ahead) leaves the session as it
 * was, which the spec requires ("if an exception is raised … discard any changes to the state").
 */
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes, equalBytes, toBase64, utf8ToBytes } from './bytes.js';
import { aeadOpen, aeadSeal } from './aead.js';
import { E2eeError } from './e2ee-error.js';
import { newX25519Pair } from './local-identity.js';
import type { KeyPair } from './local-identity.js';
import { advanceChain, skipTo, takeSkippedKey } from './symmetric-chain.js';
import type { SkippedKey } from './symmetric-chain.js';
import { dh } from './x3dh.js';
import { ByteReader, ByteWriter } from './wire.js';

const ROOT_INFO = utf8ToBytes('E2EE v1 Ratchet');
const MESSAGE_PURPOSE = 'E2EE v1 MessageKeys';
export const HEADER_BYTES = 32 + 4 + 4;

export interface RatchetState {
  /** X3DH's AD (IK_A || IK_B), bound into every message. */
  associatedData: Uint8Array;
  ownRatchetKey: KeyPair;
  peerRatchetKey?: Uint8Array;
  rootKey: Uint8Array;
  sendingChain?: Uint8Array;
  receivingChain?: Uint8Array;
  sent: number;
  received: number;
  previousChainLength: number;
  skipped: SkippedKey[];
}

interface Header {
  ratchetKey: Uint8Array;
  previousChainLength: number;
  index: number;
}

function kdfRoot(rootKey: Uint8Array, dhOutput: Uint8Array) {
  const out = hkdf(sha256, dhOutput, rootKey, ROOT_INFO, 64);
  return { rootKey: out.slice(0, 32), chainKey: out.slice(32) };
}

/** Alice, after X3DH: her first ratchet key against Bob's signed prekey. */
export function initiatorState(
  sharedSecret: Uint8Array,
  associatedData: Uint8Array,
  peerSignedPreKey: Uint8Array,
): RatchetState {
  const ownRatchetKey = newX25519Pair();
  const root = kdfRoot(sharedSecret, dh(ownRatchetKey.secretKey, peerSignedPreKey));
  return {
    associatedData,
    ownRatchetKey,
    peerRatchetKey: peerSignedPreKey,
    rootKey: root.rootKey,
    sendingChain: root.chainKey,
    sent: 0,
    received: 0,
    previousChainLength: 0,
    skipped: [],
  };
}

/** Bob, after X3DH: his signed prekey is his first ratchet key. */
export function responderState(
  sharedSecret: Uint8Array,
  associatedData: Uint8Array,
  signedPreKey: KeyPair,
): RatchetState {
  return {
    associatedData,
    ownRatchetKey: { secretKey: signedPreKey.secretKey, publicKey: signedPreKey.publicKey },
    rootKey: sharedSecret,
    sent: 0,
    received: 0,
    previousChainLength: 0,
    skipped: [],
  };
}

const encodeHeader = (header: Header) =>
  new ByteWriter()
    .fixed(header.ratchetKey)
    .u32(header.previousChainLength)
    .u32(header.index)
    .bytes();

/** Encrypts `plaintext`; the message is the header followed by the AEAD ciphertext. */
export function ratchetEncrypt(
  current: RatchetState,
  plaintext: Uint8Array,
): { state: RatchetState; message: Uint8Array } {
  if (!current.sendingChain) throw new E2eeError('NO_SESSION', 'no sending chain yet');
  const state = structuredClone(current);
  const step = advanceChain(current.sendingChain);
  const header = encodeHeader({
    ratchetKey: state.ownRatchetKey.publicKey,
    previousChainLength: state.previousChainLength,
    index: state.sent,
  });
  state.sendingChain = step.chainKey;
  state.sent += 1;
  const ciphertext = aeadSeal(
    step.messageKey,
    MESSAGE_PURPOSE,
    plaintext,
    concatBytes(state.associatedData, header),
  );
  return { state, message: concatBytes(header, ciphertext) };
}

/** Opens `message`; throws (with `current` untouched) for a tampered, replayed or too-far message. */
export function ratchetDecrypt(
  current: RatchetState,
  message: Uint8Array,
): { state: RatchetState; plaintext: Uint8Array } {
  const reader = new ByteReader(message);
  const header: Header = {
    ratchetKey: reader.fixed(32),
    previousChainLength: reader.u32(),
    index: reader.u32(),
  };
  const headerBytes = message.subarray(0, HEADER_BYTES);
  const ciphertext = reader.rest();
  const state = structuredClone(current);
  const chain = toBase64(header.ratchetKey);
  const open = (messageKey: Uint8Array) =>
    aeadOpen(
      messageKey,
      MESSAGE_PURPOSE,
      ciphertext,
      concatBytes(state.associatedData, headerBytes),
    );

  const skippedKey = takeSkippedKey(state.skipped, chain, header.index);
  if (skippedKey) return { state, plaintext: open(skippedKey) };

  const isCurrentChain =
    state.peerRatchetKey !== undefined && equalBytes(header.ratchetKey, state.peerRatchetKey);
  if (isCurrentChain && state.receivingChain && header.index < state.received)
    throw new E2eeError('DUPLICATE_MESSAGE', 'this message was already opened');
  if (!isCurrentChain || !state.receivingChain) {
    if (state.receivingChain && state.peerRatchetKey)
      state.receivingChain = skipTo(
        state.receivingChain,
        toBase64(state.peerRatchetKey),
        state.received,
        header.previousChainLength,
        state.skipped,
      );
    dhRatchet(state, header.ratchetKey);
  }
  const receivingChain = skipTo(
    state.receivingChain!,
    chain,
    state.received,
    header.index,
    state.skipped,
  );
  const step = advanceChain(receivingChain);
  state.receivingChain = step.chainKey;
  state.received = header.index + 1;
  return { state, plaintext: open(step.messageKey) };
}

function dhRatchet(state: RatchetState, peerRatchetKey: Uint8Array): void {
  state.previousChainLength = state.sent;
  state.sent = 0;
  state.received = 0;
  state.peerRatchetKey = peerRatchetKey;
  const receiving = kdfRoot(state.rootKey, dh(state.ownRatchetKey.secretKey, peerRatchetKey));
  state.receivingChain = receiving.chainKey;
  state.ownRatchetKey = newX25519Pair();
  const sending = kdfRoot(receiving.rootKey, dh(state.ownRatchetKey.secretKey, peerRatchetKey));
  state.rootKey = sending.rootKey;
  state.sendingChain = sending.chainKey;
}
