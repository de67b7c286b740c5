/**
 * What a 1:1 session carries (the plaintext of a Double Ratchet message): one type byte, then an
 * application payload, or a sender-key distribution that the SDK consumes and never shows.
 */
import type { SenderKeyDistribution } from './sender-keys.js';
import { ByteReader, ByteWriter } from './wire.js';
import { E2eeError } from './e2ee-error.js';

const PAYLOAD = 1;
const SENDER_KEY_DISTRIBUTION = 2;

export type DirectContent =
  | { kind: 'payload'; payload: Uint8Array }
  | { kind: 'distribution'; distribution: SenderKeyDistribution };

export function encodeDirectContent(content: DirectContent): Uint8Array {
  if (content.kind === 'payload')
    return new ByteWriter().u8(PAYLOAD).fixed(content.payload).bytes();
  const { groupId, keyId, iteration, chainKey, signingKey } = content.distribution;
  return new ByteWriter()
    .u8(SENDER_KEY_DISTRIBUTION)
    .text(groupId)
    .u32(keyId)
    .u32(iteration)
    .fixed(chainKey)
    .fixed(signingKey)
    .bytes();
}

export function decodeDirectContent(bytes: Uint8Array): DirectContent {
  const reader = new ByteReader(bytes);
  const type = reader.u8();
  if (type === PAYLOAD) return { kind: 'payload', payload: reader.rest() };
  if (type !== SENDER_KEY_DISTRIBUTION)
    throw new E2eeError('MALFORMED', `unknown content type ${type}`);
  const distribution: SenderKeyDistribution = {
    groupId: reader.text(),
    keyId: reader.u32(),
    iteration: reader.u32(),
    chainKey: reader.fixed(32),
    signingKey: reader.fixed(32),
  };
  reader.end();
  return { kind: 'distribution', distribution };
}
