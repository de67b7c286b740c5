/**
 * The WebSocket limits per user across connections: a "connection" is a WsLimits on its own
 * pod (its own shared-state instance), and the user's frames may arrive on any of them.
 */
import type { SharedState } from '../../src/platform/shared-state/shared-state.js';
import { RateLimiter } from '../../src/limits/rate-limiter.js';
import type { DecisionOutcome } from '../../src/limits/rate-limiter.js';
import { WsLimits } from '../../src/limits/ws-limits.js';
import type { WsLimitSettings } from '../../src/limits/ws-limits.js';
import { describeOnEachSharedState, unreachableRedis } from './each-shared-state.js';
import type { Pods } from './each-shared-state.js';

const T0 = 1_700_000_000_000;

await describeOnEachSharedState('WsLimits', (newPods) => {
  let pods: Pods;
  let connectionA: WsLimits;
  let connectionB: WsLimits;

  async function connections(settings?: Partial<WsLimitSettings>): Promise<[WsLimits, WsLimits]> {
    const [podA, podB] = await Promise.all([pods.open(), pods.open()]);
    return [
      new WsLimits(new RateLimiter(podA, { now: () => T0 }), settings),
      new WsLimits(new RateLimiter(podB, { now: () => T0 }), settings),
    ];
  }

  beforeEach(async () => {
    pods = newPods();
    [connectionA, connectionB] = await connections();
  });
  afterEach(() => pods.dispose());

  /** Sends `count` frames alternating between the two connections; how many were allowed. */
  async function allowedOf(
    count: number,
    send: (connection: WsLimits) => Promise<{ allowed: boolean }>,
  ): Promise<number> {
    let allowed = 0;
    for (let i = 0; i < count; i++)
      if ((await send(i % 2 === 0 ? connectionA : connectionB)).allowed) allowed += 1;
    return allowed;
  }

  test("messages: a burst of 10 across the user's connections, then one every 2 s", async () => {
    expect(await allowedOf(10, (connection) => connection.message('alice'))).toBe(10);
    expect(await connectionA.message('alice')).toEqual({
      allowed: false,
      refusedBy: 'ws_message',
      retryAfterMs: 2000,
    });
    expect(await connectionB.message('alice')).toEqual({
      allowed: false,
      refusedBy: 'ws_message',
      retryAfterMs: 2000,
    });
    expect(await connectionB.message('bob')).toEqual({ allowed: true });
  });

  test('ICE candidates: a burst of 30 per user, then one every 600 ms', async () => {
    expect(
      await allowedOf(30, (connection) =>
        connection.iceCandidate('alice', `call-${connection === connectionA ? 1 : 2}`),
      ),
    ).toBe(30);
    expect(await connectionA.iceCandidate('alice', 'call-3')).toEqual({
      allowed: false,
      refusedBy: 'ws_ice_candidate',
      retryAfterMs: 600,
    });
  });

  test('signaling: a burst of 5 per user, then one every 6 s', async () => {
    expect(await allowedOf(5, (connection) => connection.signaling('alice'))).toBe(5);
    expect(await connectionB.signaling('alice')).toEqual({
      allowed: false,
      refusedBy: 'ws_signaling',
      retryAfterMs: 6000,
    });
  });

  test('the kinds are separate buckets', async () => {
    await allowedOf(10, (connection) => connection.message('alice'));
    expect(await connectionA.signaling('alice')).toEqual({ allowed: true });
    expect(await connectionA.iceCandidate('alice', 'call-1')).toEqual({ allowed: true });
  });

  test('message limits come from the settings', async () => {
    [connectionA, connectionB] = await connections({ messages: { limit: 120, burst: 2 } });
    expect(await allowedOf(2, (connection) => connection.message('alice'))).toBe(2);
    expect(await connectionA.message('alice')).toEqual({
      allowed: false,
      refusedBy: 'ws_message',
      retryAfterMs: 500,
    });
  });

  test('ICE candidates per call: 50 for both parties combined', async () => {
    for (let i = 0; i < 25; i++) {
      expect(await connectionA.iceCandidate('alice', 'call-1')).toEqual({ allowed: true });
      expect(await connectionB.iceCandidate('bob', 'call-1')).toEqual({ allowed: true });
    }
    const refused = { allowed: false, refusedBy: 'ws_call_ice_candidates', retryAfterMs: null };
    expect(await connectionA.iceCandidate('alice', 'call-1')).toEqual(refused);
    expect(await connectionB.iceCandidate('bob', 'call-1')).toEqual(refused);
    expect(await connectionA.iceCandidate('alice', 'call-2')).toEqual({ allowed: true });
  });

  test("a candidate refused by the user's rate does not count against the call", async () => {
    expect(await allowedOf(31, () => connectionA.iceCandidate('alice', 'call-1'))).toBe(30);
    expect(await allowedOf(21, () => connectionB.iceCandidate('bob', 'call-1'))).toBe(20);
  });
});

describe('WsLimits when shared state fails (Redis unreachable)', () => {
  let state: SharedState;
  beforeAll(async () => {
    state = await unreachableRedis();
  });
  afterAll(() => state.close());

  test('every limit fails open, and says so', async () => {
    const outcomes: DecisionOutcome[] = [];
    const limits = new WsLimits(
      new RateLimiter(state, { onDecision: (_scope, outcome) => outcomes.push(outcome) }),
    );
    expect(await limits.message('alice')).toEqual({ allowed: true });
    expect(await limits.signaling('alice')).toEqual({ allowed: true });
    expect(await limits.iceCandidate('alice', 'call-1')).toEqual({ allowed: true });
    expect(outcomes).toEqual(['failed_open', 'failed_open', 'failed_open', 'failed_open']);
  });
});
