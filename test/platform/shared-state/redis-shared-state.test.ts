/**
 * What only the Redis implementation can get wrong: failing fast when Redis is gone or
 * hung, recovering (subscriptions included) when it is back, and the script cache.
 */
import { createHash } from 'node:crypto';
import { DependencyUnavailableError } from '../../../src/platform/errors/dependency-unavailable.js';
import { openSharedState } from '../../../src/platform/shared-state/open-shared-state.js';
import { defineScript } from '../../../src/platform/shared-state/shared-state.js';
import type { SharedState } from '../../../src/platform/shared-state/shared-state.js';
import { LEVEL, recordingLogger } from './recording-logger.js';
import { adminConnection, deleteKeys, uniqueTestPrefix, withRedis } from './redis-for-tests.js';
import { startTcpProxy } from './tcp-proxy.js';
import type { TcpProxy } from './tcp-proxy.js';
import { passesEventually } from '../../support/passes-eventually.js';

/** Settles `operation` and returns how long it took; fails if it resolved. */
async function rejectionTime(operation: () => Promise<unknown>): Promise<number> {
  const started = Date.now();
  await expect(operation()).rejects.toThrow();
  return Date.now() - started;
}

describe('RedisSharedState with no Redis listening', () => {
  const { logger, records } = recordingLogger();
  let state: SharedState;
  let openMs: number;

  beforeAll(async () => {
    const started = Date.now();
    state = await openSharedState({
      redisUrl: 'redis://127.0.0.1:1',
      keyPrefix: 'unreachable:',
      logger,
    });
    openMs = Date.now() - started;
  });

  afterAll(async () => {
    await state.close();
  });

  test('opening resolves promptly and logs the outage', () => {
    expect(openMs).toBeLessThan(2500);
    expect(
      records.some((record) => record.level === LEVEL.warn && /unavailable/.test(record.msg)),
    ).toBe(true);
  });

  test('ping and every command reject at once, not after a timeout', async () => {
    const script = defineScript<[], number>({
      name: 'one',
      keys: 0,
      lua: 'return 1',
      local: () => 1,
    });
    const operations: Array<() => Promise<unknown>> = [
      () => state.ping(),
      () => state.get('k'),
      () => state.set('k', 'v', { ttlMs: 1000, onlyIfAbsent: true }),
      () => state.take('k'),
      () => state.delete('k'),
      () => state.exists('k'),
      () => state.incrementBy('k', 1, 1000),
      () => state.run(script, [], []),
      () => state.publish('c', 'm'),
      () => state.subscribe('c', () => undefined),
      () => state.hasSubscribers('c'),
    ];
    // No offline queue: nothing waits for a reconnect (the brief's bound is 2 s; this is ~0).
    for (const operation of operations) expect(await rejectionTime(operation)).toBeLessThan(500);
  });

  test('every command rejects as an outage (503), not as a server bug', async () => {
    const operations: Array<() => Promise<unknown>> = [
      () => state.get('k'),
      () => state.publish('c', 'm'),
      () => state.hasSubscribers('c'),
    ];
    for (const operation of operations)
      await expect(operation()).rejects.toBeInstanceOf(DependencyUnavailableError);
  });
});

await withRedis((redisUrl) => {
  describe('RedisSharedState against a real Redis', () => {
    const runPrefix = uniqueTestPrefix('redis-shared-state');
    const { logger, records } = recordingLogger();
    const opened: SharedState[] = [];
    let proxy: TcpProxy;
    let direct: SharedState;

    const open = async (url: string) => {
      const state = await openSharedState({ redisUrl: url, keyPrefix: runPrefix, logger });
      opened.push(state);
      return state;
    };

    beforeAll(async () => {
      proxy = await startTcpProxy(redisUrl);
      direct = await open(redisUrl);
    });

    afterEach(() => proxy.restore());

    afterAll(async () => {
      await Promise.all(opened.map((state) => state.close()));
      await proxy.close();
      await deleteKeys(redisUrl, runPrefix);
    });

    test('a script is loaded on first use (EVAL) and run by SHA afterwards', async () => {
      const lua = `-- ${runPrefix}\nreturn redis.call('INCR', KEYS[1])`;
      // As sent: with `PUBLISH` bound to plain pub/sub (one Redis), the script's first line.
      const sha = createHash('sha1').update(`local PUBLISH = 'PUBLISH'\n${lua}`).digest('hex');
      const script = defineScript<[], number>({ name: 'fresh', keys: 1, lua, local: () => 0 });
      const admin = await adminConnection(redisUrl);
      try {
        expect(await admin.script('EXISTS', sha)).toEqual([0]);
        expect(await direct.run(script, ['fresh'], [])).toBe(1);
        expect(await admin.script('EXISTS', sha)).toEqual([1]);
        expect(await direct.run(script, ['fresh'], [])).toBe(2);
      } finally {
        await admin.quit();
      }
    });

    test('a command on a connection that stopped answering rejects within 2 s', async () => {
      const state = await open(proxy.url);
      await state.set('hung', 'v');
      proxy.freeze();
      expect(await rejectionTime(() => state.get('hung'))).toBeLessThan(2000);
      expect(await rejectionTime(() => state.ping())).toBeLessThan(2000);
      proxy.restore();
      await passesEventually(() => state.ping(), 8000, 50);
      expect(await state.get('hung')).toBe('v');
    });

    test('during an outage calls fail at once; afterwards commands and subscriptions recover', async () => {
      const state = await open(proxy.url);
      const received: string[] = [];
      await state.subscribe('events', (message) => {
        received.push(message);
      });

      proxy.cut();
      await passesEventually(
        async () => {
          await expect(state.ping()).rejects.toThrow();
        },
        8000,
        50,
      );
      expect(await rejectionTime(() => state.get('k'))).toBeLessThan(200);
      expect(await rejectionTime(() => state.subscribe('other', () => undefined))).toBeLessThan(
        200,
      );

      proxy.restore();
      await passesEventually(() => state.ping(), 8000, 50);
      await state.set('after-outage', 'ok');
      expect(await direct.get('after-outage')).toBe('ok');
      // Resubscription runs right after reconnecting; publish until it has taken effect.
      await passesEventually(
        async () => {
          await direct.publish('events', 'after outage');
          expect(received).toContain('after outage');
        },
        8000,
        50,
      );
      expect(
        records.some((record) => record.level === LEVEL.warn && /unavailable/.test(record.msg)),
      ).toBe(true);
      expect(
        records.some((record) => record.level === LEVEL.info && /restored/.test(record.msg)),
      ).toBe(true);
    });

    test('a subscription restored after the connection was lost says so, and from then on receives', async () => {
      const state = await open(proxy.url);
      const received: string[] = [];
      let resubscribed = 0;
      await state.subscribe(
        'endings',
        (message) => void received.push(message),
        () => (resubscribed += 1),
      );

      proxy.cut();
      await passesEventually(
        async () => {
          await expect(state.ping()).rejects.toThrow();
        },
        8000,
        50,
      );
      await direct.publish('endings', 'lost while away');
      expect(resubscribed).toBe(0);

      proxy.restore();
      await passesEventually(
        async () => {
          expect(resubscribed).toBe(1);
        },
        8000,
        50,
      );
      // Told only once the subscription is in effect: a publish right after it arrives.
      await direct.publish('endings', 'after');
      await passesEventually(
        async () => {
          expect(received).toEqual(['after']);
        },
        8000,
        50,
      );
    });

    test('a command in flight when the connection drops rejects and is never replayed', async () => {
      const state = await open(proxy.url);
      await state.ping();
      proxy.freeze(); // the SET below stays in the proxy, never reaching Redis
      const inFlight = state.set('in-flight', 'late');
      await new Promise((resolve) => setTimeout(resolve, 100));
      proxy.cut();
      await expect(inFlight).rejects.toThrow();
      proxy.restore();
      await passesEventually(() => state.ping(), 8000, 50);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await direct.get('in-flight')).toBeNull();
    });
  });
});
