/**
 * The 5-session cap ends the least recently active session by its true last request, even when
 * that request reached another api pod and its store write was skipped by the once-a-minute
 * throttle. Two SessionManagers play two api pods: one embedded store, one shared state.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Revocations } from '../../../src/identity/sessions/revocations.js';
import { sessionIndexes } from '../../../src/identity/sessions/session.js';
import { SessionActivity } from '../../../src/identity/sessions/session-activity.js';
import { SessionManager } from '../../../src/identity/sessions/session-manager.js';
import { createLogger } from '../../../src/platform/logging/logger.js';
import { MemorySharedState } from '../../../src/platform/shared-state/memory-shared-state.js';
import { MemoryStore } from '../../../src/platform/shared-state/memory-store.js';
import type { DocumentStore } from '../../../src/platform/store/document-store.js';
import { openStore } from '../../../src/platform/store/open-store.js';

let dataDir: string;
let store: DocumentStore;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'session-recency-'));
  store = await openStore({ dataDir, logger: createLogger('silent') });
  await store.ensureIndexes(sessionIndexes);
});
afterAll(async () => {
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const redis = new MemoryStore();
const pod = () => {
  const sharedState = new MemorySharedState({
    keyPrefix: 'svc:',
    logger: createLogger('silent'),
    store: redis,
  });
  return new SessionManager(
    store,
    new Revocations(sharedState, 60_000),
    new SessionActivity(sharedState),
    { ttlMs: 3_600_000, idleTimeoutMs: 0 },
  );
};
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));
const init = {
  address: '0xabc',
  authMethod: 'wallet' as const,
  deviceName: 'd',
  userAgent: 'ua',
  ip: '127.0.0.1',
  dpopJkt: null,
};

it('a request on another pod, not yet written to the store, keeps its session from eviction', async () => {
  const [podA, podB] = [pod(), pod()];
  const busiest = (await podA.open(init)).session._id;
  expect(await podB.touch(busiest)).toBe(true); // written: podB had not seen it
  const others: string[] = [];
  for (let i = 0; i < 4; i++) {
    await tick();
    others.push((await podA.open(init)).session._id);
  }
  await tick();
  expect(await podB.touch(busiest)).toBe(true); // within the minute: not written to the store
  await tick();

  const opened = await podA.open(init);

  expect(opened.evicted).toEqual([others[0]]);
  expect((await podA.listActive(init.address)).map((session) => session._id)).toContain(busiest);
});
