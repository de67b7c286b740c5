/** What the contract cannot see of the in-memory store: sweeping and delivery timing. */
import { MemoryStore } from '../../../src/platform/shared-state/memory-store.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('MemoryStore', () => {
  test('the periodic sweep frees expired entries that nobody reads again', async () => {
    const store = new MemoryStore({ sweepIntervalMs: 20 });
    for (const key of ['a', 'b', 'c']) store.set(key, 'v', { ttlMs: 30 });
    store.set('kept', 'v');
    expect(store.size).toBe(4);
    await sleep(120);
    expect(store.size).toBe(1);
    expect(store.get('kept')).toBe('v');
  });

  test('a TTL renewed past its first sweep keeps the entry until the new expiry, then it is freed', async () => {
    const store = new MemoryStore({ sweepIntervalMs: 20 });
    store.set('renewed', 'v', { ttlMs: 30 });
    store.set('shortened', 'v', { ttlMs: 60_000 });
    expect(store.pexpire('renewed', 150)).toBe(true);
    expect(store.pexpire('shortened', 30)).toBe(true);
    await sleep(100);
    expect(store.size).toBe(1);
    expect(store.get('renewed')).toBe('v');
    await sleep(150);
    expect(store.size).toBe(0);
  });

  test('an entry deleted or made persistent before its expiry is not swept later', async () => {
    const store = new MemoryStore({ sweepIntervalMs: 20 });
    store.set('persisted', 'v', { ttlMs: 30 });
    store.set('persisted', 'v2');
    store.set('recreated', 'v', { ttlMs: 30 });
    store.delete('recreated');
    store.set('recreated', 'v2', { ttlMs: 60_000 });
    await sleep(120);
    expect([store.size, store.get('persisted'), store.get('recreated')]).toEqual([2, 'v2', 'v2']);
  });

  test('the sweep keeps a key whose expiry moved later or was cleared, and frees one moved earlier', async () => {
    const store = new MemoryStore({ sweepIntervalMs: 20 });
    store.set('extended', 'v', { ttlMs: 30 });
    store.pexpire('extended', 10_000);
    store.set('cleared', 'v', { ttlMs: 30 });
    store.set('cleared', 'v2');
    store.set('shortened', 'v', { ttlMs: 10_000 });
    store.pexpire('shortened', 30);
    store.set('replaced', 'v', { ttlMs: 30 });
    store.set('replaced', 'v2', { ttlMs: 10_000 });
    await sleep(120);
    expect(store.size).toBe(3);
    expect([store.get('extended'), store.get('cleared'), store.get('replaced')]).toEqual([
      'v',
      'v2',
      'v2',
    ]);
    expect(store.pttl('extended')).toBeGreaterThan(9000);
  });

  test('pttl, pexpire and keepTtl follow Redis', () => {
    const store = new MemoryStore();
    expect(store.pttl('absent')).toBe(-2);
    expect(store.pexpire('absent', 1000)).toBe(false);
    store.set('k', 'v');
    expect(store.pttl('k')).toBe(-1);
    expect(store.pexpire('k', 1000)).toBe(true);
    store.set('k', 'v2', { keepTtl: true });
    expect(store.pttl('k')).toBeGreaterThan(900);
    store.set('k', 'v3');
    expect(store.pttl('k')).toBe(-1);
    expect(store.pexpire('k', 0)).toBe(true);
    expect(store.get('k')).toBeNull();
  });

  test('a listener removed after publish but before delivery does not get the message', async () => {
    const store = new MemoryStore();
    const received: string[] = [];
    const remove = store.subscribe('c', (message) => received.push(message));
    store.publish('c', 'm');
    remove();
    await sleep(10);
    expect(received).toEqual([]);
  });

  test('a listener added after publish does not get the message', async () => {
    const store = new MemoryStore();
    const early: string[] = [];
    const late: string[] = [];
    store.subscribe('c', (message) => early.push(message));
    store.publish('c', 'm');
    store.subscribe('c', (message) => late.push(message));
    await sleep(10);
    expect([early, late]).toEqual([['m'], []]);
  });
});
