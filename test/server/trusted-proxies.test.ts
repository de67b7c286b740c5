import { loadConfig } from '../../src/platform/config/load-config.js';
import { ConfigError } from '../../src/platform/config/setting.js';
import { normaliseIp, resolveClientIp } from '../../src/server/trusted-proxies.js';

const trusted = (text: string) => {
  const list = loadConfig({ TRUSTED_PROXIES: text }).http.trustedProxies;
  if (list === undefined) throw new Error('expected a list');
  return list;
};

describe('TRUSTED_PROXIES', () => {
  it('is unset by default: no proxy trusted', () => {
    expect(loadConfig({}).http.trustedProxies).toBeUndefined();
    expect(loadConfig({ TRUSTED_PROXIES: '' }).http.trustedProxies).toBeUndefined();
  });

  it('accepts IPv4 and IPv6 CIDRs, with spaces around the commas', () => {
    const list = trusted('10.0.0.0/8, fd00::/8 ,127.0.0.1/32');
    expect(list.check('10.200.3.4', 'ipv4')).toBe(true);
    expect(list.check('11.0.0.1', 'ipv4')).toBe(false);
    expect(list.check('fd12::1', 'ipv6')).toBe(true);
    expect(list.check('fe80::1', 'ipv6')).toBe(false);
    expect(list.check('127.0.0.1', 'ipv4')).toBe(true);
    expect(list.check('127.0.0.2', 'ipv4')).toBe(false);
  });

  it.each([
    '10.0.0.0',
    '10.0.0.0/33',
    'fd00::/129',
    '999.0.0.0/8',
    'proxy.local/32',
    '10.0.0.0/8,,fd00::/8',
    '10.0.0.0/-1',
    '10.0.0.0/8/8',
  ])('refuses %j naming the variable', (value) => {
    expect(() => loadConfig({ TRUSTED_PROXIES: value })).toThrow(ConfigError);
    expect(() => loadConfig({ TRUSTED_PROXIES: value })).toThrow(
      'TRUSTED_PROXIES must be a comma-separated list of CIDRs',
    );
  });
});

describe('resolveClientIp', () => {
  const proxies = trusted('10.0.0.0/8,fd00::/8,127.0.0.1/32');

  it('is the socket address when no proxy is trusted, whatever the header says', () => {
    expect(resolveClientIp('10.0.0.1', '203.0.113.9', undefined)).toBe('10.0.0.1');
  });

  it('ignores X-Forwarded-For from an untrusted socket', () => {
    expect(resolveClientIp('198.51.100.7', '203.0.113.9', proxies)).toBe('198.51.100.7');
    expect(resolveClientIp('2001:db8::7', '203.0.113.9', proxies)).toBe('2001:db8::7');
  });

  it('is the socket address when a trusted proxy sends no header', () => {
    expect(resolveClientIp('10.0.0.1', undefined, proxies)).toBe('10.0.0.1');
  });

  it('takes the rightmost untrusted entry from a trusted proxy, never the leftmost', () => {
    expect(resolveClientIp('10.0.0.1', '203.0.113.9', proxies)).toBe('203.0.113.9');
    // the client forged the first entry; the proxy appended the real peer
    expect(resolveClientIp('10.0.0.1', '198.51.100.1, 203.0.113.9', proxies)).toBe('203.0.113.9');
    expect(resolveClientIp('10.0.0.1', '1.1.1.1,2.2.2.2,203.0.113.9', proxies)).toBe('203.0.113.9');
  });

  it('skips trusted hops of a proxy chain', () => {
    expect(
      resolveClientIp('10.0.0.1', '198.51.100.1, 203.0.113.9, 10.1.1.1, 10.2.2.2', proxies),
    ).toBe('203.0.113.9');
    expect(resolveClientIp('127.0.0.1', '203.0.113.9, fd00::5, 10.0.0.3', proxies)).toBe(
      '203.0.113.9',
    );
  });

  it('takes the leftmost entry when every hop is trusted', () => {
    expect(resolveClientIp('10.0.0.1', '10.9.9.9, 10.2.2.2', proxies)).toBe('10.9.9.9');
  });

  it('stops at a malformed entry and uses the last trusted hop', () => {
    expect(resolveClientIp('10.0.0.1', 'garbage', proxies)).toBe('10.0.0.1');
    expect(resolveClientIp('10.0.0.1', '203.0.113.9, garbage, 10.2.2.2', proxies)).toBe('10.2.2.2');
    expect(resolveClientIp('10.0.0.1', '203.0.113.9, , 10.2.2.2', proxies)).toBe('10.2.2.2');
    expect(resolveClientIp('10.0.0.1', '203.0.113.9:4711', proxies)).toBe('10.0.0.1');
    expect(resolveClientIp('10.0.0.1', '203.0.113.9, unknown', proxies)).toBe('10.0.0.1');
    expect(resolveClientIp('10.0.0.1', '', proxies)).toBe('10.0.0.1');
    expect(resolveClientIp('10.0.0.1', '203.0.113.9, fe80::1%eth0', proxies)).toBe('10.0.0.1');
    // beyond the malformed entry nothing is believed, even an untrusted address
    expect(resolveClientIp('10.0.0.1', '198.51.100.1, garbage', proxies)).toBe('10.0.0.1');
  });

  it('handles IPv6 clients and proxies, in one spelling', () => {
    expect(resolveClientIp('fd00::1', '2001:db8::9', proxies)).toBe('2001:db8::9');
    expect(resolveClientIp('fd00::1', '2001:DB8:0:0:0:0:0:9', proxies)).toBe('2001:db8::9');
    expect(resolveClientIp('10.0.0.1', '2001:db8::9, fd00::2', proxies)).toBe('2001:db8::9');
  });

  it('normalises IPv4-mapped IPv6 entries to IPv4, for matching and for the result', () => {
    expect(resolveClientIp('10.0.0.1', '::ffff:203.0.113.9', proxies)).toBe('203.0.113.9');
    expect(resolveClientIp('10.0.0.1', '203.0.113.9, ::FFFF:10.2.2.2', proxies)).toBe(
      '203.0.113.9',
    );
    expect(resolveClientIp('10.0.0.1', '0:0:0:0:0:ffff:cb00:7109', proxies)).toBe('203.0.113.9');
  });
});

describe('normaliseIp', () => {
  it.each([
    ['1.2.3.4', '1.2.3.4'],
    ['::1', '::1'],
    ['2001:0DB8::0001', '2001:db8::1'],
    ['::ffff:1.2.3.4', '1.2.3.4'],
    ['::ffff:102:304', '1.2.3.4'],
    ['::1.2.3.4', '::102:304'],
    ['01.2.3.4', undefined],
    ['[::1]', undefined],
    ['', undefined],
  ])('%j → %j', (input, expected) => {
    expect(normaliseIp(input)).toBe(expected);
  });
});
