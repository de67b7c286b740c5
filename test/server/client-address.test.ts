import { formatAddress } from '../../src/server/client-address.js';

const bytes = (...values: number[]) => new Uint8Array(values).buffer;

describe('formatAddress', () => {
  it('formats IPv4', () => {
    expect(formatAddress(bytes(127, 0, 0, 1))).toBe('127.0.0.1');
  });

  it('unwraps IPv4-mapped IPv6', () => {
    expect(formatAddress(bytes(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 1, 2, 3))).toBe(
      '10.1.2.3',
    );
  });

  it('formats IPv6 with RFC 5952 zero compression', () => {
    expect(formatAddress(bytes(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1))).toBe('::1');
    expect(formatAddress(bytes(0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1))).toBe(
      '2001:db8::1',
    );
    expect(formatAddress(bytes(0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1))).toBe(
      '2001:db8:0:1::1',
    );
    expect(formatAddress(bytes(0xfe, 0x80, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7))).toBe(
      'fe80:1:2:3:4:5:6:7',
    );
  });

  it('says unknown for anything else', () => {
    expect(formatAddress(bytes())).toBe('unknown');
  });
});
