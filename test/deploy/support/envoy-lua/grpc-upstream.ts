/**
 * One gRPC call over HTTP/2 to the api pods' port, recorded as Envoy's router hands it to the
 * filters: response headers, the body bytes, and trailers (absent for a trailers-only answer).
 */
import { connect } from 'node:http2';
import type { IncomingHttpHeaders } from 'node:http2';
import type { HeaderList } from './run-lua-filter.js';

export interface UpstreamResponse {
  readonly headers: HeaderList;
  readonly data: Buffer;
  readonly trailers?: HeaderList;
}

export async function grpcExchange(
  address: string,
  headers: HeaderList,
  message: Uint8Array,
): Promise<UpstreamResponse> {
  const session = connect(`http://${address}`);
  try {
    const stream = session.request(Object.fromEntries(headers));
    const chunks: Buffer[] = [];
    let responseHeaders: HeaderList = [];
    let trailers: HeaderList | undefined;
    stream.on('response', (received) => (responseHeaders = headerList(received)));
    stream.on('trailers', (received) => (trailers = headerList(received)));
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    const frame = Buffer.alloc(5 + message.byteLength);
    frame.writeUInt32BE(message.byteLength, 1);
    frame.set(message, 5);
    stream.end(frame);
    await new Promise<void>((resolve, reject) => {
      stream.on('close', resolve);
      stream.on('error', reject);
    });
    return {
      headers: responseHeaders,
      data: Buffer.concat(chunks),
      ...(trailers ? { trailers } : {}),
    };
  } finally {
    session.close();
  }
}

function headerList(received: IncomingHttpHeaders): HeaderList {
  return Object.entries(received).flatMap(([key, value]) =>
    value === undefined
      ? []
      : (Array.isArray(value) ? value : [String(value)]).map((item): [string, string] => [
          key,
          item,
        ]),
  );
}

/** The messages of a gRPC body (uncompressed length-prefixed frames). */
export function grpcMessages(data: Buffer): Buffer[] {
  const messages: Buffer[] = [];
  for (let offset = 0; offset + 5 <= data.length;) {
    if (data[offset] !== 0) throw new Error('compressed gRPC messages are not modelled');
    const length = data.readUInt32BE(offset + 1);
    messages.push(data.subarray(offset + 5, offset + 5 + length));
    offset += 5 + length;
  }
  return messages;
}
