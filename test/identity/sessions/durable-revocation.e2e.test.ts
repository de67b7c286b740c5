/**
 * An ended session stays ended: the store is the record of it, shared state only a cache. After
 * the process restarts (in-memory shared state is gone), after Redis restarts empty, and while
 * Redis is frozen, the ended session's access token never opens `/ws` (nor passes REST); at worst
 * the handshake is refused with 4503 (could not be checked, retry) until the cache is rebuilt,
 * which happens without restarting any process. A live session works again after the rebuild.
 */
import {
  Api,
  expectAccessAccepted,
  expectAccessRefused,
  expectOk,
  signInAgain,
} from '../../support/session-api.js';
import { connectWs } from '../../support/session-ws.js';
import type { WsOutcome } from '../../support/session-ws.js';
import { acrossRestart } from '../../support/start-service.js';
import {
  DEPLOYMENTS_AND_REDIS_CLUSTER,
  deploymentForThisBlock,
  eventually,
} from '../../support/private-deployment.js';
import { TestUser, bearer, signIn } from '../../support/wallet.js';
import type { SignedIn } from '../../support/wallet.js';

const viaBearer = (url: string, session: SignedIn) =>
  connectWs(url, { protocols: ['bearer', session.accessToken] });
const closeCodeOf = (outcome: WsOutcome) =>
  'closeCode' in outcome ? outcome.closeCode : outcome.opened ? 'opened' : outcome.status;

describe('a single process with in-memory shared state, restarted', () => {
  it("does not let an ended session's access token open /ws or call REST", async () => {
    await acrossRestart(
      async (service) => {
        const user = new TestUser();
        const ended = await signIn(service.baseUrl, user);
        const live = await signInAgain(service.baseUrl, user);
        expectOk(await new Api(service.baseUrl).post('/api/v1/logout', {}, bearer(ended)));
        return { ended, live };
      },
      async (service, { ended, live }) => {
        const api = new Api(service.baseUrl);
        expect(closeCodeOf(await viaBearer(service.baseUrl, ended))).toBe(4401);
        await expectAccessRefused(api, ended.accessToken);
        expect(closeCodeOf(await viaBearer(service.baseUrl, live))).toBe('opened');
        await expectAccessAccepted(api, live.accessToken);
      },
    );
  });
});

describe.each(DEPLOYMENTS_AND_REDIS_CLUSTER)('on a %s with its own Redis', (shape) => {
  const running = deploymentForThisBlock(shape);

  const endOne = async () => {
    const { deployment, api } = running;
    const user = new TestUser();
    const ended = await signIn(deployment.apiUrl, user);
    const live = await signInAgain(deployment.apiUrl, user);
    expectOk(await api.post('/api/v1/logout', {}, bearer(ended)));
    return { ended, live };
  };

  /** Every ws pod, until none says 4503 any more: the ended session never opens meanwhile. */
  const settledOutcomes = (session: SignedIn) =>
    Promise.all(
      running.deployment.wsUrls.map((wsUrl) =>
        eventually(
          async () => {
            const code = closeCodeOf(await viaBearer(wsUrl, session));
            return code === 4503 ? undefined : code;
          },
          20_000,
          'the shared-state cache rebuild',
        ),
      ),
    );

  it('Redis restarted empty: the ended session stays refused, the live one works again, with no process restarted', async () => {
    const { deployment, api } = running;
    const { ended, live } = await endOne();
    await deployment.redis.restartEmpty();

    expect(await settledOutcomes(ended)).toEqual(deployment.wsUrls.map(() => 4401));
    expect(await settledOutcomes(live)).toEqual(deployment.wsUrls.map(() => 'opened'));
    await expectAccessRefused(api, ended.accessToken);
    await expectAccessAccepted(api, live.accessToken);
  });

  it('Redis frozen: handshakes are refused with 4503, never opened; after the thaw the ended session stays refused', async () => {
    const { deployment } = running;
    const { ended, live } = await endOne();
    deployment.redis.freeze();
    try {
      for (const wsUrl of deployment.wsUrls) {
        expect(closeCodeOf(await viaBearer(wsUrl, ended))).toBe(4503);
        expect(closeCodeOf(await viaBearer(wsUrl, live))).toBe(4503);
      }
    } finally {
      deployment.redis.thaw();
    }
    expect(await settledOutcomes(ended)).toEqual(deployment.wsUrls.map(() => 4401));
    expect(await settledOutcomes(live)).toEqual(deployment.wsUrls.map(() => 'opened'));
  });
});
