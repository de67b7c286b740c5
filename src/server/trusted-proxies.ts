/**
 * The client address behind trusted reverse proxies. The socket address is the client unless
 * the connection comes from a configured trusted proxy (TRUSTED_PROXIES); then X-Forwarded-For
 * is read from right to left, skipping hops that are trusted proxies themselves, and the first
 * untrusted entry is the client. The leftmost entries are whatever the client sent, so they are
 * never believed on their own: a client cannot choose its own address (and its limits bucket).
 */
import { isIP } from 'node:net';
import type { BlockList } from 'node:net';

/**
 * `socketAddress` is the peer as formatAddress spells it; `forwardedFor` the X-Forwarded-For
 * header (several headers already joined with ", "). Without a trusted list nothing is parsed.
 */
export function resolveClientIp(
  socketAddress: string,
  forwardedFor: string | undefined,
  trusted: BlockList | undefined,
): string {
  if (trusted === undefined || forwardedFor === undefined || !isTrusted(trusted, socketAddress))
    return socketAddress;
  const entries = forwardedFor.split(',');
  let lastTrusted = socketAddress;
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = normaliseIp((entries[i] as string).trim());
    // Not an address: nothing left of it can be attributed; the last trusted hop is the client.
    if (entry === undefined) return lastTrusted;
    if (!isTrusted(trusted, entry)) return entry;
    lastTrusted = entry;
  }
  // Every hop is a trusted proxy: the leftmost one is the closest thing to a client.
  return lastTrusted;
}

function isTrusted(trusted: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && trusted.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * A valid address in one spelling: IPv6 lower-case and zero-compressed (RFC 5952, as the
 * socket address is), IPv4-mapped IPv6 as plain IPv4. `undefined` when it is not an address.
 */
export function normaliseIp(text: string): string | undefined {
  const family = isIP(text);
  if (family === 4) return text;
  if (family !== 6) return undefined;
  let canonical: string;
  try {
    // The WHATWG serialisation of an IPv6 host is the RFC 5952 form, in brackets.
    canonical = new URL(`http://[${text}]/`).hostname.slice(1, -1);
  } catch {
    return undefined; // zone ids (fe80::1%eth0) and the like
  }
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (!mapped) return canonical;
  const high = parseInt(mapped[1] as string, 16);
  const low = parseInt(mapped[2] as string, 16);
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}
