/**
 * A list of network peers (setting KEYS_DHT_PEERS): comma-separated entries, each either a
 * `host:port` (a DNS name is resolved to every address it has, which is how a Kubernetes
 * headless Service lists its pods; an IP literal stands for itself; IPv6 in brackets) or a
 * TCP multiaddr (`/ip4/10.0.0.7/tcp/4001`, `/dns4/peers.example/tcp/4001`). Unset: no peers.
 */
import { isIP } from 'node:net';
import { ConfigError } from './setting.js';
import type { Setting } from './setting.js';

export type PeerAddress =
  | { readonly kind: 'host'; readonly host: string; readonly port: number }
  | { readonly kind: 'multiaddr'; readonly multiaddr: string };

const HOST_PORT = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/;
const TCP_MULTIADDR = /^\/(?:ip4|ip6|dns|dns4|dns6)\/[^/\s]+\/tcp\/\d{1,5}(?:\/p2p\/\w+)?$/;

export function peerListSetting(env: string, description: string): Setting<readonly PeerAddress[]> {
  return {
    env,
    description,
    defaultText: undefined,
    parse(raw) {
      if (raw === undefined || raw.trim() === '') return [];
      return raw.split(',').map((item) => parsePeer(env, item.trim()));
    },
  };
}

function parsePeer(env: string, text: string): PeerAddress {
  if (TCP_MULTIADDR.test(text)) return { kind: 'multiaddr', multiaddr: text };
  const match = HOST_PORT.exec(text);
  const port = Number(match?.[3]);
  const bracketed = match?.[1];
  if (!match || port < 1 || port > 65535 || (bracketed !== undefined && isIP(bracketed) !== 6)) {
    throw new ConfigError(
      env,
      `must list host:port or TCP multiaddrs (/ip4/10.0.0.7/tcp/4001), got "${text}"`,
    );
  }
  return { kind: 'host', host: bracketed ?? (match[2] as string), port };
}
