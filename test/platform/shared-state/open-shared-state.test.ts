import { MemorySharedState } from '../../../src/platform/shared-state/memory-shared-state.js';
import { openSharedState } from '../../../src/platform/shared-state/open-shared-state.js';
import { RedisSharedState } from '../../../src/platform/shared-state/redis-shared-state.js';
import { recordingLogger } from './recording-logger.js';

describe('openSharedState', () => {
  test('without a Redis URL it serves this process from memory', async () => {
    const { logger, records } = recordingLogger();
    const state = await openSharedState({ keyPrefix: 'svc:', logger });
    expect(state).toBeInstanceOf(MemorySharedState);
    await state.set('k', 'v');
    expect(await state.get('k')).toBe('v');
    expect(records.map((record) => record.msg)).toContain(
      'shared state: in-process (REDIS_URL unset; one process only)',
    );
    await state.close();
  });

  test('with a Redis URL it uses Redis and never logs the password', async () => {
    const { logger, records } = recordingLogger();
    const state = await openSharedState({
      redisUrl: 'redis://:s3cret@127.0.0.1:1',
      keyPrefix: 'svc:',
      logger,
    });
    expect(state).toBeInstanceOf(RedisSharedState);
    await state.close();
    expect(JSON.stringify(records)).not.toContain('s3cret');
  });
});
