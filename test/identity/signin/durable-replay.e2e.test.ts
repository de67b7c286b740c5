/**
 * An accepted sign-in signature stays spent for the spec's 10 minutes whatever happens to the
 * replay cache: after the process restarts (in-memory shared state is gone), after Redis
 * restarts empty, and after Redis was frozen, presenting it again is 401 REPLAY_DETECTED. While
 * Redis cannot answer, a sign-in is 503, never accepted.
 */
import { Api, expectFailure, expectOk } from '../../support/session-api.js';
import type { Reply } from '../../support/session-api.js';
import { acrossRestart } from '../../support/start-service.js';
import {
  DEPLOYMENTS_AND_REDIS_CLUSTER,
  deploymentForThisBlock,
  eventually,
} from '../../support/private-deployment.js';
import { TestUser } from '../../support/wallet.js';

/** A registration accepted once; returns the body, to be presented again. */
async function acceptedOnce(api: Api): Promise<Record<string, unknown>> {
  const body = await new TestUser().initializeBody('register');
  expectOk(await api.post('/api/v1/initialize', body));
  return body;
}

describe('a single process with in-memory shared state, restarted', () => {
  it('refuses a signature spent before the restart', async () => {
    await acrossRestart(
      (service) => acceptedOnce(new Api(service.baseUrl)),
      async (service, spent) =>
        expectFailure(
          await new Api(service.baseUrl).post('/api/v1/initialize', spent),
          401,
          'REPLAY_DETECTED',
        ),
    );
  });
});

describe.each(DEPLOYMENTS_AND_REDIS_CLUSTER)('on a %s with its own Redis', (shape) => {
  // Abuse controls on, as in production: sign-in then needs Redis (lockouts, fail-closed
  // buckets), so an outage refuses it. The buckets are widened for the test's many sign-ins.
  const wide = { limit: 100_000, burst: 10_000 };
  const overrides = {
    ip: wide,
    user: wide,
    auth: wide,
    default: wide,
    'AuthService.Initialize': wide,
  };
  const running = deploymentForThisBlock(shape, {
    RATE_LIMITS_ENABLED: 'true',
    RATE_LIMIT_OVERRIDES: JSON.stringify(overrides),
  });

  /** Presents `body` until the answer is not a 503 of the outage. */
  const settledAnswer = (body: Record<string, unknown>) =>
    eventually(
      async () => {
        const reply: Reply = await running.api.post('/api/v1/initialize', body);
        return reply.status === 503 ? undefined : reply;
      },
      20_000,
      'recovery from the outage',
    );

  it('Redis restarted empty: the spent signature is still REPLAY_DETECTED', async () => {
    const spent = await acceptedOnce(running.api);
    await running.deployment.redis.restartEmpty();
    expectFailure(await settledAnswer(spent), 401, 'REPLAY_DETECTED');
  });

  it('Redis frozen: a sign-in is 503; after the thaw the spent signature is still REPLAY_DETECTED', async () => {
    const { deployment, api } = running;
    const spent = await acceptedOnce(api);
    const fresh = await new TestUser().initializeBody('register');
    deployment.redis.freeze();
    try {
      expectFailure(await api.post('/api/v1/initialize', fresh), 503, 'UNAVAILABLE');
    } finally {
      deployment.redis.thaw();
    }
    expectFailure(await settledAnswer(spent), 401, 'REPLAY_DETECTED');
    // The sign-in refused during the outage spent nothing: its signature is accepted now.
    expectOk(await settledAnswer(fresh));
  });
});
