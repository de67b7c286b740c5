/**
 * Reads the string fields of a protobuf message in its binary encoding — all a sender
 * certificate (relay.proto's SenderCertificateData) has — without a protobuf runtime in the SDK.
 * Fields of other wire types are skipped, as protobuf readers do with unknown fields.
 */
import { E2eeError } from './e2ee-error.js';

const malformed = () => new E2eeError('INVALID_CERTIFICATE', 'malformed protobuf');

export function protobufStrings(bytes: Uint8Array): Map<number, string> {
  const fields = new Map<number, string>();
  let offset = 0;
  const varint = (): number => {
    let value = 0;
    for (let shift = 0; shift < 64; shift += 7) {
      if (offset >= bytes.length) throw malformed();
      const byte = bytes[offset++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
    throw malformed();
  };
  const skip = (length: number) => {
    if (offset + length > bytes.length) throw malformed();
    offset += length;
  };
  const decoder = new TextDecoder('utf-8', { fatal: true });
  while (offset < bytes.length) {
    const tag = varint();
    const field = Math.floor(tag / 8);
    switch (tag % 8) {
      case 0:
        varint();
        break;
      case 1:
        skip(8);
        break;
      case 2: {
        const length = varint();
        const start = offset;
        skip(length);
        try {
          fields.set(field, decoder.decode(bytes.subarray(start, offset)));
        } catch {
          throw malformed();
        }
        break;
      }
      case 5:
        skip(4);
        break;
      default:
        throw malformed();
    }
  }
  return fields;
}
