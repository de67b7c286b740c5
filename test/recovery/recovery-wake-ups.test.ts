/**
 * Who a recovery notice wakes by push (recovery-notices.ts): a new request wakes the owner
 * (someone is trying to take the account: the owner may still cancel within the time lock) and
 * every guardian (asked to decide); later changes wake the owner only. Real parts: the push
 * queue on the in-process shared state, whose wake jobs an api pod's dispatcher expands.
 */
import { createLogger } from '../../src/platform/logging/logger.js';
import { OutageLog } from '../../src/platform/logging/outage-log.js';
import { MemorySharedState } from '../../src/platform/shared-state/memory-shared-state.js';
import { PushQueue } from '../../src/push/delivery/push-queue.js';
import { WakeUps } from '../../src/push/delivery/wake-ups.js';
import { MessagingEvents } from '../../src/events/messaging-events.js';
import { UserEventStream } from '../../src/events/user-event-stream.js';
import type { RecoveryRequestRecord } from '../../src/recovery/recovery-request.js';
import { RecoveryNotices } from '../../src/recovery/recovery-notices.js';

const address = (n: number) => `0x${String(n).padStart(40, '0')}`;
const [OWNER, G1, G2, G3] = [address(1), address(2), address(3), address(4)];
const logger = createLogger('silent');

function setUp() {
  const sharedState = new MemorySharedState({ keyPrefix: `wake-${Date.now()}:`, logger });
  const queue = new PushQueue(sharedState);
  const events = new MessagingEvents(
    new UserEventStream(sharedState, { retainCount: 10, retentionMs: 60_000 }),
    logger,
  );
  const notices = new RecoveryNotices(events, new WakeUps(queue, logger, new OutageLog(logger)));
  const woken = async () => {
    const jobs = await queue.claim(100, 60_000);
    return jobs.flatMap(({ job }) => {
      if (job.type !== 'wake') throw new Error(`unexpected ${job.type} job`);
      return job.addresses.map((address) => ({ address, kind: job.wake.kind }));
    });
  };
  return { notices, woken };
}

const now = new Date();
const request: RecoveryRequestRecord = {
  _id: 'a'.repeat(32),
  address: OWNER,
  newWalletAddress: address(9),
  status: 'pending',
  open: true,
  approvalsRequired: 2,
  guardians: [G1, G2, G3],
  decisions: [],
  approvals: 0,
  rejections: 0,
  timeLockHours: 24,
  createdAt: now,
  thresholdReachedAt: null,
  unlocksAt: null,
  expiresAt: new Date(now.getTime() + 7 * 24 * 3600_000),
  closedAt: null,
};

test('an opened request wakes the owner and every guardian with kind recovery_request', async () => {
  const { notices, woken } = setUp();
  await notices.requestChanged(request, 'opened', now);
  const jobs = await woken();
  expect(jobs.map((job) => job.address).sort()).toEqual([OWNER, G1, G2, G3].sort());
  expect(new Set(jobs.map((job) => job.kind))).toEqual(new Set(['recovery_request']));
});

test.each(['approved', 'rejected', 'threshold_reached', 'cancelled', 'completed'] as const)(
  'a request %s wakes the owner only',
  async (change) => {
    const { notices, woken } = setUp();
    await notices.requestChanged(request, change, now);
    expect(await woken()).toEqual([{ address: OWNER, kind: 'recovery_request' }]);
  },
);
