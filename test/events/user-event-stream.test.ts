/**
 * A durable event with a dedupe key (what it announces, e.g. one message) is appended to a
 * user's stream once: publishing it again answers the first event's number and neither keeps
 * nor publishes a second event. Events without one are all appended. A kept event is rewritten
 * in place through its dedupe key (an edited or deleted message's events), keeping its number
 * and stream, and so is a channel post kept for catch-up. On the in-process implementation and
 * on a real Redis.
 */
import { createLogger } from '../../src/platform/logging/logger.js';
import { MemorySharedState } from '../../src/platform/shared-state/memory-shared-state.js';
import { openSharedState } from '../../src/platform/shared-state/open-shared-state.js';
import { defineScript } from '../../src/platform/shared-state/shared-state.js';
import type { SharedState } from '../../src/platform/shared-state/shared-state.js';
import { ChannelPostStream } from '../../src/events/channel-post-stream.js';
import { eventJson } from '../../src/events/event-envelope.js';
import { UserEventStream } from '../../src/events/user-event-stream.js';
import type { StreamedEvent } from '../../src/events/user-event-stream.js';
import {
  deleteKeys,
  uniqueTestPrefix,
  withRedis,
} from '../platform/shared-state/redis-for-tests.js';

const logger = createLogger('silent');
const THIRTY_DAYS_MS = 30 * 24 * 60 * 60 * 1000;
/** PTTL of one key, on either implementation. */
const pttl = defineScript<[], number>({
  name: 'test-pttl',
  keys: 1,
  lua: "return redis.call('PTTL', KEYS[1])",
  local: (state, [key]) => state.pttl(key!),
});
const USER = '0x' + 'c'.repeat(40);

function describeDedupe(
  name: string,
  open: () => Promise<{ state: SharedState; dispose(): Promise<void> }>,
) {
  describe(`durable events with a dedupe key on ${name}`, () => {
    let opened: { state: SharedState; dispose(): Promise<void> };
    beforeAll(async () => {
      opened = await open();
    });
    afterAll(() => opened.dispose());

    test('are appended once; others each time', async () => {
      const stream = new UserEventStream(opened.state, { retainCount: 100, retentionMs: 60_000 });
      const received: StreamedEvent[] = [];
      const unsubscribe = await stream.subscribe(USER, (event) => received.push(event));
      try {
        const first = await stream.publishDurable(
          USER,
          eventJson('message.new', { n: 1 }),
          'message.new:m1',
        );
        const again = await stream.publishDurable(
          USER,
          eventJson('message.new', { n: 2 }),
          'message.new:m1',
        );
        const other = await stream.publishDurable(
          USER,
          eventJson('message.new', { n: 3 }),
          'message.new:m2',
        );
        const plain = [
          await stream.publishDurable(USER, eventJson('message.read', { n: 4 })),
          await stream.publishDurable(USER, eventJson('message.read', { n: 4 })),
        ];

        expect([first, again, other, ...plain]).toEqual([1, 1, 2, 3, 4]);
        const kept = (await stream.frames(USER, 1, 4))!.map(
          (frame) => (JSON.parse(frame) as { data: { n: number } }).data.n,
        );
        expect(kept).toEqual([1, 3, 4, 4]);
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(received.map((event) => event.seq)).toEqual([1, 2, 3, 4]);
      } finally {
        await unsubscribe();
      }
    });

    test('the counter and the stream id are kept 30 days from the latest event', async () => {
      const stream = new UserEventStream(opened.state, { retainCount: 100, retentionMs: 60_000 });
      const user = '0x' + 'f'.repeat(40);
      await stream.publishDurable(user, eventJson('message.read', { n: 1 }));
      await stream.publishDurable(user, eventJson('message.read', { n: 2 }));
      const keys = [`ev:{${user}}:seq`, `ev:{${user}}:stream`];
      const ttls = await Promise.all(keys.map((key) => opened.state.run(pttl, [key], [])));
      for (const ttl of ttls) {
        expect(ttl).toBeGreaterThan(THIRTY_DAYS_MS - 60_000);
        expect(ttl).toBeLessThanOrEqual(THIRTY_DAYS_MS);
      }
      expect(await stream.position(user)).toEqual({ stream: expect.any(String), seq: 2 });
    });

    test('a kept event is rewritten in place by its dedupe key; one not kept is left alone', async () => {
      const user = '0x' + 'd'.repeat(40);
      const stream = new UserEventStream(opened.state, { retainCount: 100, retentionMs: 60_000 });
      await stream.publishDurable(
        user,
        eventJson('message.new', { text: 'secret' }),
        'message.new:x',
      );
      await stream.publishDurable(user, eventJson('message.read', { n: 1 }));
      const before = JSON.parse((await stream.frames(user, 1, 1))![0]!) as Record<string, unknown>;
      expect(
        await stream.rewriteLogged(user, 'message.new:x', eventJson('message.new', { text: '' })),
      ).toBe(true);
      expect(
        await stream.rewriteLogged(user, 'message.new:never', eventJson('message.new', {})),
      ).toBe(false);
      const frames = (await stream.frames(user, 1, 2))!.map(
        (frame) => JSON.parse(frame) as Record<string, unknown>,
      );
      expect(frames[0]).toMatchObject({ seq: 1, stream: before.stream, data: { text: '' } });
      expect(JSON.stringify(frames)).not.toContain('secret');
      expect(frames[1]).toMatchObject({ seq: 2, data: { n: 1 } });
      expect(await stream.position(user)).toEqual({ stream: before.stream, seq: 2 });
    });

    test('a channel post kept for catch-up is replaced; one not kept is not created', async () => {
      const posts = new ChannelPostStream(opened.state, { retainCount: 10, retentionMs: 60_000 });
      await posts.publish('ch1', 1, '{"post":"secret"}');
      await posts.replaceKept('ch1', 1, '{"post":"tombstone"}');
      await posts.replaceKept('ch1', 2, '{"post":"never published"}');
      expect(await posts.frames('ch1', 1, 1)).toEqual(['{"post":"tombstone"}']);
      expect(await posts.frames('ch1', 2, 2)).toBeNull();
    });
  });
}

describeDedupe('the in-process shared state', async () => {
  const state = new MemorySharedState({ keyPrefix: 't:', logger });
  return { state, dispose: () => state.close() };
});

await withRedis((url) =>
  describeDedupe('Redis', async () => {
    const prefix = uniqueTestPrefix('event-dedupe');
    const state = await openSharedState({ redisUrl: url, keyPrefix: prefix, logger });
    return {
      state,
      async dispose() {
        await state.close();
        await deleteKeys(url, prefix);
      },
    };
  }),
);
