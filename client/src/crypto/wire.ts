/**
 * The byte layout every protocol message is written in: big-endian integers, fixed-size keys as
 * raw bytes, variable-size fields with a 4-byte length. The reader refuses anything cut short or
 * with bytes left over, so a message parses one way only.
 */
import { E2eeError } from './e2ee-error.js';

export class ByteWriter {
  private readonly parts: Uint8Array[] = [];

  u8(value: number): this {
    this.parts.push(Uint8Array.of(value));
    return this;
  }

  u32(value: number): this {
    const bytes = new Uint8Array(4);
    new DataView(bytes.buffer).setUint32(0, value);
    this.parts.push(bytes);
    return this;
  }

  fixed(bytes: Uint8Array): this {
    this.parts.push(bytes);
    return this;
  }

  sized(bytes: Uint8Array): this {
    return this.u32(bytes.length).fixed(bytes);
  }

  text(value: string): this {
    return this.sized(new TextEncoder().encode(value));
  }

  bytes(): Uint8Array {
    const total = this.parts.reduce((sum, part) => sum + part.length, 0);
    const out = new Uint8Array(total);
    let offset = 0;
    for (const part of this.parts) {
      out.set(part, offset);
      offset += part.length;
    }
    return out;
  }
}

export class ByteReader {
  private offset = 0;

  constructor(private readonly data: Uint8Array) {}

  u8(): number {
    return this.fixed(1)[0]!;
  }

  u32(): number {
    const bytes = this.fixed(4);
    return new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0);
  }

  fixed(length: number): Uint8Array {
    if (this.offset + length > this.data.length)
      throw new E2eeError('MALFORMED', 'message is cut short');
    const out = this.data.slice(this.offset, this.offset + length);
    this.offset += length;
    return out;
  }

  sized(): Uint8Array {
    return this.fixed(this.u32());
  }

  text(): string {
    return new TextDecoder('utf-8', { fatal: true }).decode(this.sized());
  }

  /** Everything not read yet (the last, unsized field of a message). */
  rest(): Uint8Array {
    return this.fixed(this.data.length - this.offset);
  }

  end(): void {
    if (this.offset !== this.data.length)
      throw new E2eeError('MALFORMED', 'unexpected bytes after the message');
  }
}
