import type { FileHandle } from 'node:fs/promises';
import { Journal } from '../../../../src/platform/store/embedded/journal.js';
import type { Mutation } from '../../../../src/platform/store/embedded/mutation.js';

/** Records what the journal does to its file; datasync completes only when released. */
class FakeFile {
  readonly events: string[] = [];
  readonly written: string[] = [];
  private releaseSync: (() => void) | undefined;
  failNextSync = false;

  async write(data: Buffer, offset: number, length: number) {
    this.written.push(data.subarray(offset, offset + length).toString());
    this.events.push('write');
    return { bytesWritten: length };
  }
  datasync(): Promise<void> {
    this.events.push('datasync');
    if (this.failNextSync) return Promise.reject(new Error('EIO'));
    return new Promise((resolve) => (this.releaseSync = resolve));
  }
  async close() {
    this.events.push('close');
  }
  finishSync(): void {
    const release = this.releaseSync;
    this.releaseSync = undefined;
    release?.();
  }
  asHandle(): FileHandle {
    return this as unknown as FileHandle;
  }
}

const put = (id: string): Mutation[] => [{ op: 'put', c: 'notes', doc: { _id: id } }];
const tick = () => new Promise((resolve) => setImmediate(resolve));

test('appends of one tick share one write and one fdatasync, and resolve only after it', async () => {
  const file = new FakeFile();
  const journal = new Journal(file.asHandle(), 0);
  let acknowledged = 0;
  const writes = ['a', 'b', 'c'].map((id) =>
    journal.append(put(id)).then(() => (acknowledged += 1)),
  );
  await tick();
  expect(file.events).toEqual(['write', 'datasync']);
  expect(file.written[0]!.trim().split('\n')).toHaveLength(3);
  expect(acknowledged).toBe(0);

  file.finishSync();
  await Promise.all(writes);
  expect(acknowledged).toBe(3);
});

test('appends arriving during an fdatasync go together in the next one', async () => {
  const file = new FakeFile();
  const journal = new Journal(file.asHandle(), 0);
  const first = journal.append(put('a'));
  await tick();
  const later = [journal.append(put('b')), journal.append(put('c'))];
  await tick();
  expect(file.events).toEqual(['write', 'datasync']);
  file.finishSync();
  await first;
  await tick();
  expect(file.events).toEqual(['write', 'datasync', 'write', 'datasync']);
  expect(file.written[1]!.trim().split('\n')).toHaveLength(2);
  file.finishSync();
  await Promise.all(later);
});

test('rotation sends earlier records to the old file and closes it before using the new one', async () => {
  const old = new FakeFile();
  const next = new FakeFile();
  const journal = new Journal(old.asHandle(), 100);
  const before = journal.append(put('a'));
  const retired = journal.rotate(next.asHandle());
  const after = journal.append(put('b'));
  expect(journal.size).toBeGreaterThan(0);
  expect(journal.size).toBeLessThan(100);
  await tick();
  old.finishSync();
  await Promise.all([before, retired]);
  expect(old.events).toEqual(['write', 'datasync', 'close']);
  await tick();
  next.finishSync();
  await after;
  expect(next.written.join('')).toContain('"b"');
  expect(old.written.join('')).not.toContain('"b"');
});

test('a failed fdatasync fails its records and every later append', async () => {
  const file = new FakeFile();
  file.failNextSync = true;
  const journal = new Journal(file.asHandle(), 0);
  await expect(journal.append(put('a'))).rejects.toThrow('EIO');
  await expect(journal.append(put('b'))).rejects.toThrow('EIO');
});

test('assertWritable reports the failure that stopped the journal', async () => {
  const file = new FakeFile();
  const journal = new Journal(file.asHandle(), 0);
  expect(() => journal.assertWritable()).not.toThrow();
  file.failNextSync = true;
  await expect(journal.append(put('a'))).rejects.toThrow('EIO');
  expect(() => journal.assertWritable()).toThrow('EIO');
});
