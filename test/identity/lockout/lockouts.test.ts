import { Lockouts } from '../../../src/identity/lockout/lockouts.js';
import { MemorySharedState } from '../../../src/platform/shared-state/memory-shared-state.js';
import { createLogger } from '../../../src/platform/logging/logger.js';

let now = 1_000_000;
const state = () => new MemorySharedState({ keyPrefix: 'test:', logger: createLogger('silent') });

it('locks after 5 failures, for a period that doubles with each further lock', async () => {
  const lockouts = new Lockouts(state(), true, () => now);
  for (let i = 0; i < 4; i++) expect(await lockouts.recordFailure('ip', '10.0.0.1')).toBe(0);
  expect(await lockouts.remainingMs('ip', '10.0.0.1')).toBe(0);
  expect(await lockouts.recordFailure('ip', '10.0.0.1')).toBe(60_000);
  expect(await lockouts.remainingMs('ip', '10.0.0.1')).toBe(60_000);
  now += 10_000;
  expect(await lockouts.remainingMs('ip', '10.0.0.1')).toBe(50_000);
  for (let i = 0; i < 4; i++) await lockouts.recordFailure('ip', '10.0.0.1');
  expect(await lockouts.recordFailure('ip', '10.0.0.1')).toBe(120_000);
  // Other targets are untouched.
  expect(await lockouts.remainingMs('user', '10.0.0.1')).toBe(0);
});

it('a success forgets earlier failures; clear ends a lock and its escalation', async () => {
  const lockouts = new Lockouts(state(), true, () => now);
  for (let i = 0; i < 4; i++) await lockouts.recordFailure('user', '0xabc');
  await lockouts.recordSuccess('user', '0xabc');
  expect(await lockouts.recordFailure('user', '0xabc')).toBe(0);
  for (let i = 0; i < 4; i++) await lockouts.recordFailure('user', '0xabc');
  expect(await lockouts.remainingMs('user', '0xabc')).toBe(60_000);
  expect(await lockouts.clear('user', '0xabc')).toBe(true);
  expect(await lockouts.remainingMs('user', '0xabc')).toBe(0);
  expect(await lockouts.clear('user', '0xabc')).toBe(false);
  for (let i = 0; i < 5; i++) await lockouts.recordFailure('user', '0xabc');
  expect(await lockouts.remainingMs('user', '0xabc')).toBe(60_000);
});

it('counts and locks nothing when disabled', async () => {
  const lockouts = new Lockouts(state(), false, () => now);
  for (let i = 0; i < 10; i++) expect(await lockouts.recordFailure('ip', '10.0.0.2')).toBe(0);
  expect(await lockouts.remainingMs('ip', '10.0.0.2')).toBe(0);
});
