import { maskIp } from '../../../src/identity/sessions/session.js';

it('masks IPv4 to its /24 and IPv6 to its first three groups, as session.proto documents', () => {
  expect(maskIp('203.0.113.77')).toBe('203.0.113.*');
  expect(maskIp('2001:db8:85a3:8d3:1319:8a2e:370:7348')).toBe('2001:db8:85a3:*');
  expect(maskIp('::1')).toBe('::*');
  expect(maskIp('2001:db8::1')).toBe('2001:db8::*');
});
