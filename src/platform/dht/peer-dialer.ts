/**
 * Keeps the DHT node connected to the peers named by KEYS_DHT_PEERS. Peers are found from the
 * setting alone, never from a public bootstrap list: each `host:port` is resolved to all its
 * addresses (a headless Service lists every ready api pod, this one included) and each
 * address, or multiaddr, that the node is not yet connected to is dialed. It runs at start and
 * then every `intervalMs`, so pods that start later, restart with a new address or come back
 * after a partition are found again. Peer ids are learned in the encrypted handshake, so the
 * setting needs none (pods get a fresh id at each start).
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { Libp2p } from '@libp2p/interface';
import { multiaddr } from '@multiformats/multiaddr';
import type { Multiaddr } from '@multiformats/multiaddr';
import type { PeerAddress } from '../config/peer-list.js';
import type { Logger } from '../logging/logger.js';

export class PeerDialer {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly node: Libp2p,
    private readonly peers: readonly PeerAddress[],
    private readonly logger: Logger,
    private readonly intervalMs = 10_000,
  ) {}

  start(): void {
    const round = () => {
      this.running = this.dialAll().catch((error: unknown) =>
        this.logger.warn({ err: error }, 'DHT peers could not be dialed'),
      );
    };
    round();
    this.timer = setInterval(round, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private async dialAll(): Promise<void> {
    const own = new Set(this.node.getMultiaddrs().map(hostPortOf));
    const connected = new Set(
      this.node.getConnections().map((connection) => hostPortOf(connection.remoteAddr)),
    );
    const targets = (await Promise.all(this.peers.map((peer) => this.resolve(peer)))).flat();
    const fresh = targets.filter(
      (target) => !own.has(hostPortOf(target)) && !connected.has(hostPortOf(target)),
    );
    await Promise.all(
      fresh.map((target) =>
        this.node.dial(target, { signal: AbortSignal.timeout(5_000) }).catch((error: unknown) => {
          // Expected while a peer is starting or gone, and when an address turns out to be our own.
          this.logger.debug({ err: error, peer: target.toString() }, 'DHT peer not reached');
        }),
      ),
    );
  }

  private async resolve(peer: PeerAddress): Promise<Multiaddr[]> {
    if (peer.kind === 'multiaddr') return [multiaddr(peer.multiaddr)];
    const addresses = isIP(peer.host)
      ? [{ address: peer.host, family: isIP(peer.host) }]
      : await lookup(peer.host, { all: true }).catch(() => []);
    return addresses.map(({ address, family }) =>
      multiaddr(`/ip${family}/${address}/tcp/${peer.port}`),
    );
  }
}

/** `ip:port` of a TCP multiaddr (peer id and other parts left out), for comparing addresses. */
function hostPortOf(multiaddress: Multiaddr): string {
  const { address: host, port } = multiaddress.nodeAddress();
  return `${host}:${port}`;
}
