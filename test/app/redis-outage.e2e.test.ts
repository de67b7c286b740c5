/**
 * A Redis outage is a dependency outage, not a server bug: while Redis is stopped or frozen,
 * authenticated REST routes answer 503 UNAVAILABLE with Retry-After, a new /ws connection is
 * closed with 4503, every process reports not ready, and each logs the outage once per interval
 * instead of a stack trace per request. When Redis is back (empty), everything works again
 * without restarting anything: every process is ready, and a new /ws connection on every ws
 * process receives a message sent after the recovery (its subscriptions are back). Run on one
 * process and on the cluster of one api and two ws processes, each with its own Redis, and on
 * that cluster with a private Redis Cluster whose masters are all stopped at once.
 */
import { expectOk, sleep } from '../support/session-api.js';
import type { Reply } from '../support/session-api.js';
import { connectWs } from '../support/session-ws.js';
import {
  DEPLOYMENTS_AND_REDIS_CLUSTER,
  deploymentForThisBlock,
  eventually,
} from '../support/private-deployment.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';

/** Requests per outage: enough that a per-request log line would stand out. */
const ROUNDS = 6;
/** How long Redis stays stopped: seconds, long enough for every reconnect attempt to fail a few times. */
const STOPPED_MS = 3000;

describe.each(DEPLOYMENTS_AND_REDIS_CLUSTER)('on a %s with its own Redis', (shape) => {
  const running = deploymentForThisBlock(shape);
  let alice: SignedIn;
  let bob: SignedIn;
  let sent = 0;

  beforeAll(async () => {
    [alice, bob] = [
      await signIn(running.deployment.apiUrl),
      await signIn(running.deployment.apiUrl),
    ];
  });

  const requests: [string, () => Promise<Reply>][] = [
    [
      'send',
      () =>
        running.api.post(
          '/api/v1/send',
          {
            client_message_id: `m-${++sent}-${Date.now()}`,
            recipient_address: bob.user.address,
            ciphertext: 'aGk=',
          },
          bearer(alice),
        ),
    ],
    [
      'history',
      () => running.api.get(`/api/v1/messages?peer_address=${bob.user.address}`, bearer(alice)),
    ],
    ['ws-ticket', () => running.api.post('/api/v1/auth/ws-ticket', {}, bearer(alice))],
  ];

  const expectUnavailable = (name: string, reply: Reply) => {
    expect({ name, status: reply.status, body: reply.body }).toEqual({
      name,
      status: 503,
      body: { success: false, error: expect.any(String), code: 'UNAVAILABLE' },
    });
    expect(Number(reply.headers.get('retry-after'))).toBeGreaterThan(0);
  };

  const readiness = () =>
    Promise.all(
      running.deployment.processes.map(
        async (each) => (await fetch(`${each.baseUrl}/health/ready`)).status,
      ),
    );

  /** During the outage: every route 503, every new socket 4503, not ready, and few log lines per process. */
  const duringOutage = async () => {
    const since = new Date().toISOString();
    expect(await readiness()).toEqual(running.deployment.processes.map(() => 503));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, request] of requests) expectUnavailable(name, await request());
    }
    for (const wsUrl of running.deployment.wsUrls) {
      for (let round = 0; round < 3; round++) {
        expect(await connectWs(wsUrl, { protocols: ['bearer', alice.accessToken] })).toEqual({
          opened: false,
          closeCode: 4503,
          reason: expect.any(String),
        });
      }
    }
    const loud = running.deployment
      .logLines()
      .filter((line) => line.time >= since && (line.level === 'warn' || line.level === 'error'));
    // Per process: the connection loss (commands and subscriber) and one outage summary.
    expect(loud.length).toBeLessThanOrEqual(4 * running.deployment.processes.length);
    expect(loud.filter((line) => typeof line.err?.stack === 'string')).toEqual([]);
  };

  /** After the outage, without restarting anything: every process ready, every route and /ws work again. */
  const recovered = async () => {
    const back = Date.now();
    await eventually(
      async () => ((await readiness()).every((status) => status === 200) ? true : undefined),
      20_000,
      'readiness',
    );
    expect(Date.now() - back).toBeLessThan(20_000);
    for (const [name, request] of requests) {
      const reply = await eventually(
        async () => {
          const answer = await request();
          return answer.status === 503 ? undefined : answer;
        },
        20_000,
        `${name} recovering`,
      );
      expect({ name, status: reply.status }).toEqual({ name, status: 200 });
    }
    for (const wsUrl of running.deployment.wsUrls) {
      const outcome = await eventually(
        async () => {
          const attempt = await connectWs(wsUrl, { protocols: ['bearer', alice.accessToken] });
          return 'closeCode' in attempt && attempt.closeCode === 4503 ? undefined : attempt;
        },
        20_000,
        '/ws recovering',
      );
      expect(outcome.opened).toBe(true);
    }
    // Delivery, which needs the ws processes' subscriptions: a device connected now gets a message sent now.
    for (const wsUrl of running.deployment.wsUrls) {
      const device = await running.connect(bob.accessToken, wsUrl);
      const ciphertext = Buffer.from(`after the outage ${++sent}`).toString('base64');
      expectOk(
        await running.api.post(
          '/api/v1/send',
          {
            client_message_id: `m-${sent}-${Date.now()}`,
            recipient_address: bob.user.address,
            ciphertext,
          },
          bearer(alice),
        ),
      );
      await device.next('message.new', (frame) => frame.data.message.ciphertext === ciphertext);
      device.close();
    }
  };

  it('Redis stopped for seconds (every master of a Redis Cluster): 503 with Retry-After, 4503, not ready, one log line per interval; restarted empty: full recovery', async () => {
    expectOk(await requests[0]![1]());
    const stopped = Date.now();
    await running.deployment.redis.stop();
    try {
      await duringOutage();
      await sleep(STOPPED_MS - (Date.now() - stopped));
    } finally {
      await running.deployment.redis.start();
    }
    await recovered();
  }, 90_000);

  it('Redis frozen: 503 with Retry-After, 4503, not ready, one log line per interval; thawed: full recovery', async () => {
    running.deployment.redis.freeze();
    try {
      await duringOutage();
    } finally {
      running.deployment.redis.thaw();
    }
    await recovered();
  }, 90_000);
});
