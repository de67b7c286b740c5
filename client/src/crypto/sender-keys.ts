/**
 * Sender keys for groups, as Signal's group messaging uses them: each member has, per group, a
 * chain key (advanced with KDF_CK, symmetric-chain.ts) and an Ed25519 signing key; it sends each
 * member the chain key and the signing public key once over their 1:1 session (a distribution),
 * then encrypts each group message once for everyone. A message is signed by the sender's
 * signing key, so a member holding the chain key still cannot forge another member's messages.
 * The AEAD's associated data binds the group id and the sender's address, so a message cannot be
 * replayed into another group or under another sender.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { concatBytes, randomBytes, utf8ToBytes } from './bytes.js';
import { aeadOpen, aeadSeal } from './aead.js';
import { E2eeError } from './e2ee-error.js';
import type { KeyPair } from './local-identity.js';
import { advanceChain, skipTo, takeSkippedKey } from './symmetric-chain.js';
import type { SkippedKey } from './symmetric-chain.js';
import { MessageType, envelope, openEnvelope } from './wire-format.js';

const MESSAGE_PURPOSE = 'E2EE v1 SenderKey';
const SIGNATURE_BYTES = 64;

/** What a member sends the others over 1:1 sessions so that they can open its group messages. */
export interface SenderKeyDistribution {
  groupId: string;
  keyId: number;
  iteration: number;
  chainKey: Uint8Array;
  signingKey: Uint8Array;
}

/** The sending side of a member's sender key in one group. */
export interface OwnSenderKey {
  keyId: number;
  iteration: number;
  chainKey: Uint8Array;
  signing: KeyPair;
}

/** Another member's sender key, as received. */
export interface ReceivedSenderKey {
  keyId: number;
  iteration: number;
  chainKey: Uint8Array;
  signingKey: Uint8Array;
  skipped: SkippedKey[];
}

export function newSenderKey(): OwnSenderKey {
  const secretKey = ed25519.utils.randomSecretKey();
  return {
    keyId: new DataView(randomBytes(4).buffer).getUint32(0),
    iteration: 0,
    chainKey: randomBytes(32),
    signing: { secretKey, publicKey: ed25519.getPublicKey(secretKey) },
  };
}

export const distributionOf = (groupId: string, key: OwnSenderKey): SenderKeyDistribution => ({
  groupId,
  keyId: key.keyId,
  iteration: key.iteration,
  chainKey: key.chainKey,
  signingKey: key.signing.publicKey,
});

export const receivedFrom = (distribution: SenderKeyDistribution): ReceivedSenderKey => ({
  keyId: distribution.keyId,
  iteration: distribution.iteration,
  chainKey: distribution.chainKey,
  signingKey: distribution.signingKey,
  skipped: [],
});

const associatedData = (groupId: string, sender: string) =>
  concatBytes(utf8ToBytes(groupId), Uint8Array.of(0), utf8ToBytes(sender.toLowerCase()));

export function senderKeyEncrypt(
  key: OwnSenderKey,
  groupId: string,
  sender: string,
  plaintext: Uint8Array,
): { key: OwnSenderKey; message: Uint8Array } {
  const step = advanceChain(key.chainKey);
  const ciphertext = aeadSeal(
    step.messageKey,
    MESSAGE_PURPOSE,
    plaintext,
    associatedData(groupId, sender),
  );
  const signed = envelope(MessageType.SenderKey)
    .u32(key.keyId)
    .u32(key.iteration)
    .sized(ciphertext)
    .bytes();
  return {
    key: { ...key, iteration: key.iteration + 1, chainKey: step.chainKey },
    message: concatBytes(signed, ed25519.sign(signed, key.signing.secretKey)),
  };
}

/** The key id a group message was made with: which of the sender's keys opens it. */
export function senderKeyIdOf(message: Uint8Array): number {
  return openEnvelope(message, MessageType.SenderKey).reader.u32();
}

/** Opens a group message; throws (with `key` untouched) for a forged, replayed or too-far one. */
export function senderKeyDecrypt(
  key: ReceivedSenderKey,
  groupId: string,
  sender: string,
  message: Uint8Array,
): { key: ReceivedSenderKey; plaintext: Uint8Array } {
  if (message.length < SIGNATURE_BYTES)
    throw new E2eeError('MALFORMED', 'group message is cut short');
  const signed = message.subarray(0, message.length - SIGNATURE_BYTES);
  const { reader } = openEnvelope(signed, MessageType.SenderKey);
  const keyId = reader.u32();
  const iteration = reader.u32();
  const ciphertext = reader.sized();
  reader.end();
  if (keyId !== key.keyId) throw new E2eeError('NO_SESSION', 'unknown sender key');
  if (!ed25519.verify(message.subarray(signed.length), signed, key.signingKey))
    throw new E2eeError('AUTHENTICATION_FAILED', 'group message signature does not verify');
  const next = structuredClone(key);
  const chain = String(keyId);
  let messageKey = takeSkippedKey(next.skipped, chain, iteration);
  if (!messageKey) {
    if (iteration < key.iteration)
      throw new E2eeError('DUPLICATE_MESSAGE', 'this group message was already opened');
    const chainKey = skipTo(key.chainKey, chain, key.iteration, iteration, next.skipped);
    const step = advanceChain(chainKey);
    next.chainKey = step.chainKey;
    next.iteration = iteration + 1;
    messageKey = step.messageKey;
  }
  const plaintext = aeadOpen(
    messageKey,
    MESSAGE_PURPOSE,
    ciphertext,
    associatedData(groupId, sender),
  );
  return { key: next, plaintext };
}
