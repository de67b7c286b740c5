/**
 * The behaviour every SharedState implementation must have, run against each of them
 * (see shared-state.contract.test.ts). Two instances opened with the same prefix stand
 * for two pods on one Redis; a third with another prefix for another deployment.
 */
import { defineScript } from '../../../src/platform/shared-state/shared-state.js';
import type { ScriptReply, SharedState } from '../../../src/platform/shared-state/shared-state.js';

export interface SharedStateHarness {
  /** Instances opened with the same prefix share one key space and one set of channels. */
  open(keyPrefix: string): Promise<SharedState>;
  /** Closes every instance it opened and removes every key they wrote. */
  dispose(): Promise<void>;
}

// Scripts as real callers would write them: tiny, documented, and with a faithful `local`
// twin. `run` has already checked the key count, so `keys[0]` is present.

/** Deletes KEYS[1] only while it holds ARGV[1] (releasing a lock one still owns); 1 if deleted. */
const compareAndDelete = defineScript<[expected: string], number>({
  name: 'compare-and-delete',
  keys: 1,
  lua: `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`,
  local: (state, keys, [expected]) =>
    state.get(keys[0]!) === expected ? Number(state.delete(keys[0]!)) : 0,
});

/** GET, add one, SET: loses updates if split into separate commands, never as a script. */
const readModifyWrite = defineScript<[], number>({
  name: 'read-modify-write',
  keys: 1,
  lua: `local next = tonumber(redis.call('GET', KEYS[1]) or '0') + 1
redis.call('SET', KEYS[1], next)
return next`,
  local: (state, keys) => {
    const next = Number(state.get(keys[0]!) ?? '0') + 1;
    state.set(keys[0]!, String(next));
    return next;
  },
});

/** Sets KEYS[1] to ARGV[1] for ARGV[2] ms unless it exists; returns its PTTL. */
const setIfAbsentThenTtl = defineScript<[value: string, ttlMs: number], number>({
  name: 'set-if-absent-then-ttl',
  keys: 1,
  lua: `redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX')
return redis.call('PTTL', KEYS[1])`,
  local: (state, keys, [value, ttlMs]) => {
    if (state.get(keys[0]!) === null) state.set(keys[0]!, value!, { ttlMs: Number(ttlMs) });
    return state.pttl(keys[0]!);
  },
});

/** Extends KEYS[1]'s TTL to ARGV[1] ms (0 deletes it); 1 if the key exists. */
const extend = defineScript<[ttlMs: number], number>({
  name: 'extend',
  keys: 1,
  lua: `return redis.call('PEXPIRE', KEYS[1], ARGV[1])`,
  local: (state, keys, [ttlMs]) => Number(state.pexpire(keys[0]!, Number(ttlMs))),
});

/** Returns KEYS[1]'s value, or nil. */
const lookup = defineScript<[], string | null>({
  name: 'lookup',
  keys: 1,
  lua: `return redis.call('GET', KEYS[1])`,
  local: (state, keys) => state.get(keys[0]!),
});

/** Exercises the Lua-to-reply conversion: numbers truncate to integers. */
const replyShapes = defineScript<[text: string], ScriptReply>({
  name: 'reply-shapes',
  keys: 0,
  lua: `return {ARGV[1], 2.7, -3.5}`,
  local: (_state, _keys, [text]) => [text!, 2.7, -3.5],
});

/** Fails the way a script signals a rule violation. */
/** Increments KEYS[1] and publishes the new value on the channel of the same name. */
const countAndPublish = defineScript<[], number>({
  name: 'test-count-and-publish',
  keys: 1,
  lua: `local value = redis.call('INCR', KEYS[1])
redis.call(PUBLISH, KEYS[1], tostring(value))
return value`,
  local: (state, [key]) => {
    const value = Number(state.get(key!) ?? '0') + 1;
    state.set(key!, String(value));
    state.publish(key!, String(value));
    return value;
  },
});

const refuse = defineScript<[], null>({
  name: 'refuse',
  keys: 0,
  lua: `return redis.error_reply('REFUSED by script')`,
  local: () => {
    throw new Error('REFUSED by script');
  },
});

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Collects a handler's messages; `received(n)` waits until n have arrived. */
function inbox() {
  const messages: string[] = [];
  let wake: () => void = () => undefined;
  return {
    messages,
    handler: (message: string) => {
      messages.push(message);
      wake();
    },
    async received(count: number, timeoutMs = 3000): Promise<string[]> {
      const deadline = Date.now() + timeoutMs;
      while (messages.length < count) {
        if (Date.now() > deadline)
          throw new Error(`received ${messages.length} of ${count} messages`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 20);
        });
      }
      return messages;
    },
  };
}

export function describeSharedStateContract(
  name: string,
  createHarness: () => SharedStateHarness,
): void {
  describe(`SharedState contract: ${name}`, () => {
    let harness: SharedStateHarness;
    let podA: SharedState;
    let podB: SharedState;
    let otherDeployment: SharedState;
    let counter = 0;
    const unique = (label: string) => `${label}:${++counter}`;

    beforeAll(async () => {
      harness = createHarness();
      podA = await harness.open('main:');
      podB = await harness.open('main:');
      otherDeployment = await harness.open('other:');
    });

    afterAll(async () => {
      await harness.dispose();
    });

    describe('keys', () => {
      test('a value set on one pod is read on another; an absent key reads null', async () => {
        const key = unique('k');
        expect(await podB.get(key)).toBeNull();
        expect(await podA.set(key, 'v1 ✓')).toBe(true);
        expect(await podB.get(key)).toBe('v1 ✓');
        expect(await podB.exists(key)).toBe(true);
      });

      test('getMany reads several keys at once, null where absent, in the order asked', async () => {
        const [first, missing, second] = [unique('{m}a'), unique('{m}b'), unique('{m}c')];
        await podA.set(first, 'one');
        await podA.set(second, 'two');
        expect(await podB.getMany([second, missing, first])).toEqual(['two', null, 'one']);
        expect(await podB.getMany([])).toEqual([]);
      });

      test('a key with ttlMs expires', async () => {
        const key = unique('ttl');
        await podA.set(key, 'soon gone', { ttlMs: 100 });
        expect(await podB.get(key)).toBe('soon gone');
        await sleep(250);
        expect(await podB.get(key)).toBeNull();
        expect(await podB.exists(key)).toBe(false);
      });

      test('a plain set replaces the value and clears the TTL', async () => {
        const key = unique('replace');
        await podA.set(key, 'first', { ttlMs: 100 });
        expect(await podA.set(key, 'second')).toBe(true);
        await sleep(250);
        expect(await podA.get(key)).toBe('second');
      });

      test('ttlMs must be a positive integer', async () => {
        for (const ttlMs of [0, -5, 1.5, Number.NaN]) {
          await expect(podA.set(unique('bad-ttl'), 'v', { ttlMs })).rejects.toThrow(RangeError);
        }
      });

      test('onlyIfAbsent writes only when the key is absent, again after expiry', async () => {
        const key = unique('nx');
        expect(await podA.set(key, 'first', { onlyIfAbsent: true, ttlMs: 100 })).toBe(true);
        expect(await podB.set(key, 'second', { onlyIfAbsent: true, ttlMs: 100 })).toBe(false);
        expect(await podB.get(key)).toBe('first');
        await sleep(250);
        expect(await podB.set(key, 'third', { onlyIfAbsent: true })).toBe(true);
        expect(await podA.get(key)).toBe('third');
      });

      test('of 20 concurrent onlyIfAbsent writers exactly one wins (replay cache)', async () => {
        const key = unique('replay');
        const pods = [podA, podB];
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            pods[i % 2]!.set(key, `writer-${i}`, { onlyIfAbsent: true, ttlMs: 60_000 }),
          ),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await podA.get(key)).toBe(`writer-${results.indexOf(true)}`);
      });

      test('take returns the value once, then null', async () => {
        const key = unique('ticket');
        expect(await podA.take(key)).toBeNull();
        await podA.set(key, 'ticket-1', { ttlMs: 30_000 });
        expect(await podB.take(key)).toBe('ticket-1');
        expect(await podA.take(key)).toBeNull();
        expect(await podA.exists(key)).toBe(false);
      });

      test('take does not return an expired value', async () => {
        const key = unique('expired-ticket');
        await podA.set(key, 'ticket', { ttlMs: 50 });
        await sleep(150);
        expect(await podB.take(key)).toBeNull();
      });

      test('of 20 concurrent takes on two pods exactly one gets the value', async () => {
        const key = unique('single-use');
        await podA.set(key, 'the-ticket', { ttlMs: 30_000 });
        const pods = [podA, podB];
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => pods[i % 2]!.take(key)),
        );
        expect(results.filter((value) => value !== null)).toEqual(['the-ticket']);
      });

      test('delete answers whether the key existed', async () => {
        const key = unique('delete');
        expect(await podA.delete(key)).toBe(false);
        await podA.set(key, 'v');
        expect(await podB.delete(key)).toBe(true);
        expect(await podA.exists(key)).toBe(false);
        expect(await podA.delete(key)).toBe(false);
      });

      test('incrementBy counts from 0 and adds any integer', async () => {
        const key = unique('counter');
        expect(await podA.incrementBy(key, 1)).toBe(1);
        expect(await podB.incrementBy(key, 41)).toBe(42);
        expect(await podA.incrementBy(key, -50)).toBe(-8);
        expect(await podB.get(key)).toBe('-8');
      });

      test('50 concurrent increments on two pods all count', async () => {
        const key = unique('concurrent-counter');
        const pods = [podA, podB];
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) => pods[i % 2]!.incrementBy(key, 1, 60_000)),
        );
        expect([...results].sort((x, y) => x - y)).toEqual(
          Array.from({ length: 50 }, (_, i) => i + 1),
        );
        expect(await podA.get(key)).toBe('50');
      });

      test("incrementBy's ttlMs starts at the first increment and is never extended", async () => {
        const key = unique('window');
        await podA.incrementBy(key, 1, 200);
        await sleep(120);
        expect(await podB.incrementBy(key, 1, 200)).toBe(2);
        expect(await podB.incrementBy(key, 1)).toBe(3); // no ttlMs: the expiry stays
        await sleep(130); // 250 ms after the first increment; 130 ms after the later ones
        expect(await podA.get(key)).toBeNull();
        expect(await podA.incrementBy(key, 1, 200)).toBe(1);
      });

      test('incrementBy rejects a fractional increment and a non-integer value', async () => {
        const key = unique('not-a-number');
        await expect(podA.incrementBy(key, 1.5)).rejects.toThrow(RangeError);
        await podA.set(key, 'abc');
        await expect(podA.incrementBy(key, 1)).rejects.toThrow(/not an integer/);
        await podA.set(key, '1.5');
        await expect(podA.incrementBy(key, 1, 1000)).rejects.toThrow(/not an integer/);
        expect(await podA.get(key)).toBe('1.5');
      });
    });

    describe('scripts', () => {
      test('compare-and-delete deletes only the expected value', async () => {
        const key = unique('lock');
        await podA.set(key, 'owner-1', { ttlMs: 30_000 });
        expect(await podB.run(compareAndDelete, [key], ['owner-2'])).toBe(0);
        expect(await podB.get(key)).toBe('owner-1');
        expect(await podB.run(compareAndDelete, [key], ['owner-1'])).toBe(1);
        expect(await podA.exists(key)).toBe(false);
      });

      test('of 20 concurrent compare-and-deletes exactly one deletes', async () => {
        const key = unique('lock-race');
        await podA.set(key, 'owner', { ttlMs: 30_000 });
        const pods = [podA, podB];
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            pods[i % 2]!.run(compareAndDelete, [key], ['owner']),
          ),
        );
        expect(results.filter((deleted) => deleted === 1)).toHaveLength(1);
      });

      test('40 concurrent read-modify-write runs on two pods never interleave', async () => {
        const key = unique('rmw');
        const pods = [podA, podB];
        const results = await Promise.all(
          Array.from({ length: 40 }, (_, i) => pods[i % 2]!.run(readModifyWrite, [key], [])),
        );
        expect([...results].sort((x, y) => x - y)).toEqual(
          Array.from({ length: 40 }, (_, i) => i + 1),
        );
        expect(await podA.get(key)).toBe('40');
      });

      test('scripts set and read TTLs with Redis semantics', async () => {
        const key = unique('script-ttl');
        const ttl = await podA.run(setIfAbsentThenTtl, [key], ['v', 150]);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(150);
        expect(await podB.get(key)).toBe('v');
        await sleep(300);
        expect(await podB.get(key)).toBeNull();

        const persistent = unique('script-no-ttl');
        await podA.set(persistent, 'kept');
        expect(await podB.run(setIfAbsentThenTtl, [persistent], ['ignored', 150])).toBe(-1);
        expect(await podB.get(persistent)).toBe('kept');
        expect(await podB.run(extend, [unique('absent')], [1000])).toBe(0);
        expect(await podB.run(extend, [persistent], [0])).toBe(1);
        expect(await podA.exists(persistent)).toBe(false);
      });

      test('replies convert as in Redis: nil is null, numbers truncate', async () => {
        expect(await podA.run(lookup, [unique('missing')], [])).toBeNull();
        expect(await podA.run(replyShapes, [], ['text'])).toEqual(['text', 2, -3]);
      });

      test('a script publishes atomically with its writes, in script order', async () => {
        const counter = unique('published-counter');
        const received = inbox();
        const unsubscribe = await podB.subscribe(counter, received.handler);
        await Promise.all([
          podA.run(countAndPublish, [counter], []),
          podA.run(countAndPublish, [counter], []),
        ]);
        await podB.run(countAndPublish, [counter], []);
        expect(await received.received(3)).toEqual(['1', '2', '3']);
        await unsubscribe();
      });

      test('a wrong key count or a script error rejects', async () => {
        await expect(podA.run(compareAndDelete, [], ['x'])).rejects.toThrow(RangeError);
        await expect(podA.run(refuse, [], [])).rejects.toThrow('REFUSED by script');
      });
    });

    describe('pub/sub', () => {
      test('a message published on one pod reaches a subscriber on another, in order', async () => {
        const channel = unique('user');
        const received = inbox();
        const unsubscribe = await podA.subscribe(channel, received.handler);
        const payloads = ['{"type":"message","seq":1}', '', 'ünïcødé ✓', 'x'.repeat(64 * 1024)];
        for (const payload of payloads) await podB.publish(channel, payload);
        expect(await received.received(payloads.length)).toEqual(payloads);
        await unsubscribe();
      });

      test('every subscriber of a channel receives each message', async () => {
        const channel = unique('fan-out');
        const first = inbox();
        const second = inbox();
        const onOtherPod = inbox();
        const unsubscribes = [
          await podA.subscribe(channel, first.handler),
          await podA.subscribe(channel, second.handler),
          await podB.subscribe(channel, onOtherPod.handler),
        ];
        await podA.publish(channel, 'to all');
        for (const box of [first, second, onOtherPod])
          expect(await box.received(1)).toEqual(['to all']);
        for (const unsubscribe of unsubscribes) await unsubscribe();
      });

      test('hasSubscribers tells whether any pod is subscribed to a channel now', async () => {
        const channel = unique('listened');
        expect(await podB.hasSubscribers(channel)).toBe(false);
        const unsubscribe = await podA.subscribe(channel, () => {});
        expect(await podB.hasSubscribers(channel)).toBe(true);
        await unsubscribe();
        expect(await podB.hasSubscribers(channel)).toBe(false);
      });

      test('a handler never runs inside publish()', async () => {
        const channel = unique('async');
        let publishing = false;
        const calledWhilePublishing: boolean[] = [];
        const received = inbox();
        const unsubscribe = await podA.subscribe(channel, (message) => {
          calledWhilePublishing.push(publishing);
          received.handler(message);
        });
        publishing = true;
        const published = podA.publish(channel, 'm');
        publishing = false;
        await published;
        await received.received(1);
        expect(calledWhilePublishing).toEqual([false]);
        await unsubscribe();
      });

      test('after unsubscribe resolves the handler is not called; others still are', async () => {
        const channel = unique('unsubscribe');
        const leaving = inbox();
        const staying = inbox();
        const unsubscribeLeaving = await podA.subscribe(channel, leaving.handler);
        const unsubscribeStaying = await podA.subscribe(channel, staying.handler);
        await podB.publish(channel, 'before');
        await staying.received(1);
        await leaving.received(1);

        await unsubscribeLeaving();
        await unsubscribeLeaving(); // a second call is harmless
        await podB.publish(channel, 'after');
        await staying.received(2); // delivered in one pass with any message to `leaving`
        expect(leaving.messages).toEqual(['before']);

        await unsubscribeStaying();
        const again = inbox();
        const unsubscribeAgain = await podA.subscribe(channel, again.handler);
        await podB.publish(channel, 'resubscribed');
        expect(await again.received(1)).toEqual(['resubscribed']);
        expect(staying.messages).toEqual(['before', 'after']);
        await unsubscribeAgain();
      });

      test('a failing handler neither stops others nor loses its subscription', async () => {
        const channel = unique('failing');
        const survivor = inbox();
        let throwingCalls = 0;
        let rejectingCalls = 0;
        const unsubscribes = [
          await podA.subscribe(channel, () => {
            throwingCalls += 1;
            throw new Error('handler bug');
          }),
          await podA.subscribe(channel, async () => {
            rejectingCalls += 1;
            throw new Error('async handler bug');
          }),
          await podA.subscribe(channel, survivor.handler),
        ];
        await podB.publish(channel, 'one');
        await podB.publish(channel, 'two');
        expect(await survivor.received(2)).toEqual(['one', 'two']);
        expect([throwingCalls, rejectingCalls]).toEqual([2, 2]);
        for (const unsubscribe of unsubscribes) await unsubscribe();
      });
    });

    describe('key prefix isolation', () => {
      test('another prefix sees none of the keys', async () => {
        const key = unique('isolated');
        await podA.set(key, 'main');
        expect(await otherDeployment.get(key)).toBeNull();
        expect(await otherDeployment.exists(key)).toBe(false);
        expect(await otherDeployment.take(key)).toBeNull();
        expect(await otherDeployment.delete(key)).toBe(false);
        expect(await otherDeployment.set(key, 'other', { onlyIfAbsent: true })).toBe(true);
        expect(await otherDeployment.incrementBy(unique('isolated-counter'), 1)).toBe(1);
        expect(await otherDeployment.run(compareAndDelete, [key], ['main'])).toBe(0);
        expect(await podB.get(key)).toBe('main');
        expect(await otherDeployment.get(key)).toBe('other');
      });

      test('another prefix receives none of the messages', async () => {
        const channel = unique('isolated-channel');
        const main = inbox();
        const other = inbox();
        const unsubscribes = [
          await podA.subscribe(channel, main.handler),
          await otherDeployment.subscribe(channel, other.handler),
        ];
        await podB.publish(channel, 'for main');
        // Messages reach a subscriber in publish order, so once `other` has its own
        // message, a leaked 'for main' would have arrived before it.
        await otherDeployment.publish(channel, 'for other');
        expect(await main.received(1)).toEqual(['for main']);
        expect(await other.received(1)).toEqual(['for other']);
        for (const unsubscribe of unsubscribes) await unsubscribe();
      });
    });

    describe('lifecycle', () => {
      test('ping resolves while the store is reachable', async () => {
        await expect(podA.ping()).resolves.toBeUndefined();
      });

      test('after close, calls reject and its handlers stop; other instances are unaffected', async () => {
        const closing = await harness.open('main:');
        const channel = unique('closing');
        const closingInbox = inbox();
        const witness = inbox();
        await closing.subscribe(channel, closingInbox.handler);
        const stopWitness = await podA.subscribe(channel, witness.handler);
        await closing.close();

        await expect(closing.get('k')).rejects.toThrow();
        await expect(closing.ping()).rejects.toThrow();
        await podB.publish(channel, 'after close');
        await witness.received(1);
        await sleep(50);
        expect(closingInbox.messages).toEqual([]);
        await expect(podA.ping()).resolves.toBeUndefined();
        await stopWitness();
      });
    });
  });
}
