/**
 * The versioned envelope of everything this module puts into a message's `ciphertext` (and into
 * a sealed-sender payload): one version byte, one type byte, then the type's body. The layouts
 * are documented in client/src/crypto/README.md.
 */
import { E2eeError } from './e2ee-error.js';
import { ByteReader, ByteWriter } from './wire.js';

export const WIRE_VERSION = 1;

export const MessageType = {
  /** A Double Ratchet message that also carries the X3DH fields that start its session. */
  PreKey: 1,
  /** A Double Ratchet message of an established session. */
  Ratchet: 2,
  /** A group message under the sender's sender key. */
  SenderKey: 3,
  /** A sealed-sender envelope (relay.proto's sealed_payload). */
  Sealed: 4,
} as const;
export type MessageType = (typeof MessageType)[keyof typeof MessageType];

export const envelope = (type: MessageType): ByteWriter =>
  new ByteWriter().u8(WIRE_VERSION).u8(type);

/** A reader positioned after the envelope, which must be of this version and one of `types`. */
export function openEnvelope(
  bytes: Uint8Array,
  ...types: MessageType[]
): { type: MessageType; reader: ByteReader } {
  const reader = new ByteReader(bytes);
  const version = reader.u8();
  if (version !== WIRE_VERSION)
    throw new E2eeError('MALFORMED', `unknown wire format version ${version}`);
  const type = reader.u8() as MessageType;
  if (!types.includes(type)) throw new E2eeError('MALFORMED', `unexpected message type ${type}`);
  return { type, reader };
}
