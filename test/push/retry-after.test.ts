/** `Retry-After` as push services send it (RFC 9110 section 10.2.3): delay-seconds or an HTTP date. */
import { retryAfterMs } from '../../src/push/delivery/push-sender.js';

const now = Date.parse('2026-11-25T04:00:00Z');

it.each([
  ['120', 120_000],
  [' 3 ', 3000],
  ['0', 0],
  ['Wed, 25 Nov 2026 04:00:30 GMT', 30_000],
  ['Wed, 25 Nov 2026 03:59:00 GMT', 0],
])('reads %j as %i ms', (header, expected) => {
  expect(retryAfterMs(header, now)).toBe(expected);
});

it.each([[undefined], [''], ['soon'], ['-5'], ['1.5']])(
  'answers null for %j (the backoff applies)',
  (header) => {
    expect(retryAfterMs(header, now)).toBeNull();
  },
);

it('takes the first of repeated headers', () => {
  expect(retryAfterMs(['7', '9'], now)).toBe(7000);
});
