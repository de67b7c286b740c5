/**
 * A durable event with a dedupe key (what it announces, e.g. one message) is appended to a
 * user's stream once: publishing it again answers the first event's number and neither keeps
 * nor publishes a second event. Events without one are all appended. On the in-process
 * implementation and on a real Redis.
 */
import { createLogger } from '../../src/platform/logging/logger.js';
import { MemorySharedState } from '../../src/platform/shared-state/memory-shared-state.js';
import { openSharedState } from '../../src/platform/shared-state/open-shared-state.js';
import type { SharedState } from '../../src/platform/shared-state/shared-state.js';
import { eventJson } from '../../src/events/event-envelope.js';
import { UserEventStream } from '../../src/events/user-event-stream.js';
import type { StreamedEvent } from '../../src/events/user-event-stream.js';
import {
  deleteKeys,
  uniqueTestPrefix,
  withRedis,
} from '../platform/shared-state/redis-for-tests.js';

const logger = createLogger('silent');
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
