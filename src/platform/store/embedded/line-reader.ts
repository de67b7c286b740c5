import { createReadStream } from 'node:fs';

export interface Line {
  text: string;
  /** Byte offset just past this line (and its newline). */
  end: number;
  /** False for a final fragment with no newline: a write that did not finish. */
  terminated: boolean;
}

/**
 * Streams a file's lines with their byte offsets, so that a reader can truncate a file
 * right after its last good line. Splitting bytes on '\n' is safe in UTF-8 (the byte never
 * occurs inside a multi-byte character) and EJSON escapes newlines inside strings.
 */
export async function* readLines(path: string): AsyncGenerator<Line> {
  let pending: Buffer[] = [];
  let offset = 0;
  for await (const chunk of createReadStream(path, {
    highWaterMark: 1 << 20,
  }) as AsyncIterable<Buffer>) {
    let start = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      const line = Buffer.concat([...pending, chunk.subarray(start, newline)]);
      pending = [];
      offset += line.length + 1;
      yield { text: line.toString('utf8'), end: offset, terminated: true };
      start = newline + 1;
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
  }
  if (pending.length > 0) {
    const fragment = Buffer.concat(pending);
    yield { text: fragment.toString('utf8'), end: offset + fragment.length, terminated: false };
  }
}
