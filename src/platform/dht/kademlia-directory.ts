/**
 * The record directory on a libp2p Kademlia DHT (`@libp2p/kad-dht`): one node per api process,
 * over TCP with noise encryption and yamux multiplexing, speaking a private protocol id so it
 * never joins (or answers) a public DHT. Every node validates the records it is sent and the
 * records it receives with the namespace's rules, and a read picks the current record among
 * those the peers return (the rules' selection), correcting peers that hold an older one; a
 * reader that knows the current record ends the read at the first peer that returns it.
 *
 * Two things kad-dht does not do, done here: a put is not validated locally (a node keeps its
 * own forgeries), so `put` validates first; and queries wait for a first peer by default,
 * which would hang a single node, so they are allowed with none and bounded by the timeout.
 */
import { noise } from '@chainsafe/libp2p-noise';
import { yamux } from '@chainsafe/libp2p-yamux';
import { identify } from '@libp2p/identify';
import type { Libp2p } from '@libp2p/interface';
import { kadDHT, passthroughMapper } from '@libp2p/kad-dht';
import type { KadDHTComponents, SingleKadDHT } from '@libp2p/kad-dht';
import { ping } from '@libp2p/ping';
import { tcp } from '@libp2p/tcp';
import { createLibp2p } from 'libp2p';
import { isIP } from 'node:net';
import type { PeerAddress } from '../config/peer-list.js';
import type { Logger } from '../logging/logger.js';
import { PeerDialer } from './peer-dialer.js';
import { DirectoryUnavailableError } from './record-directory.js';
import type { ReadOptions, RecordDirectory, RecordRules } from './record-directory.js';

export interface KademliaDirectoryOptions {
  /** Interface to listen on (HOST). */
  readonly host: string;
  /** TCP port; 0 for any free one. */
  readonly port: number;
  readonly peers: readonly PeerAddress[];
  /** The record namespace: keys are `/<namespace>/<key>` in the DHT. */
  readonly namespace: string;
  readonly rules: RecordRules;
  /** The longest a read or write may take. */
  readonly timeoutMs: number;
  readonly logger: Logger;
}

/** Kept apart from any public DHT: nodes speaking another protocol id never exchange records with these. */
export const DHT_PROTOCOL = '/messaging-service/keys/kad/1.0.0';
const JOIN_CHECK_MS = 1_000;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class KademliaDirectory implements RecordDirectory {
  private readonly listeners: (() => void)[] = [];
  private joinTimer: NodeJS.Timeout | undefined;
  /** Whether the node is part of a DHT now: it has peers, or needs none. */
  private joined = false;

  private constructor(
    private readonly node: Libp2p<{ dht: SingleKadDHT }>,
    private readonly dialer: PeerDialer,
    private readonly options: KademliaDirectoryOptions,
  ) {}

  static async start(options: KademliaDirectoryOptions): Promise<KademliaDirectory> {
    const family = isIP(options.host) === 6 ? 'ip6' : 'ip4';
    const node = await startDhtNode(
      `/${family}/${options.host}/tcp/${options.port}`,
      options.namespace,
      options.rules,
    );
    const dialer = new PeerDialer(node, options.peers, options.logger);
    const directory = new KademliaDirectory(node, dialer, options);
    options.logger.info(
      { addresses: node.getMultiaddrs().map(String), peers: options.peers.length },
      'key directory DHT node started',
    );
    dialer.start();
    directory.watchJoins();
    return directory;
  }

  async put(key: string, value: Uint8Array): Promise<void> {
    await this.options.rules.validate(key, value);
    let accepted = 0;
    try {
      for await (const event of this.node.services.dht.put(this.dhtKey(key), value, {
        signal: AbortSignal.timeout(this.options.timeoutMs),
      })) {
        if (event.name === 'PEER_RESPONSE') accepted++;
      }
    } catch (error) {
      throw new DirectoryUnavailableError('the DHT could not be written in time', { cause: error });
    }
    if (accepted === 0 && this.node.services.dht.routingTable.size > 0) {
      this.options.logger.warn(
        { key },
        'DHT record kept by this node only: no peer took it (it is re-published when peers join)',
      );
    }
  }

  async get(key: string, { knownCurrent }: ReadOptions = {}): Promise<Uint8Array | undefined> {
    let found: Uint8Array | undefined;
    try {
      for await (const event of this.node.services.dht.get(this.dhtKey(key), {
        signal: AbortSignal.timeout(this.options.timeoutMs),
      })) {
        // The last VALUE event is the selected (current) record.
        if (event.name === 'VALUE') found = event.value;
        // kad-dht validated a peer's record with the rules before this event; leaving the
        // loop ends the query.
        const answered = event.name === 'PEER_RESPONSE' ? event.record?.value : undefined;
        if (answered && knownCurrent && Buffer.compare(answered, knownCurrent) === 0) {
          found = answered;
          break;
        }
      }
    } catch (error) {
      this.options.logger.warn({ err: error, key }, 'DHT read failed');
      return undefined;
    }
    return found;
  }

  onJoined(listener: () => void): void {
    this.listeners.push(listener);
    // Registered after the node joined (a node without peers joins at start): told at once.
    if (this.joined) queueMicrotask(listener);
  }

  async close(): Promise<void> {
    clearInterval(this.joinTimer);
    await this.dialer.stop();
    await this.node.stop();
  }

  /** A node without peers to wait for has joined at once; otherwise each time its routing table stops being empty. */
  private watchJoins(): void {
    if (this.options.peers.length === 0) {
      this.joined = true;
      return;
    }
    this.joinTimer = setInterval(() => {
      const hasPeers = this.node.services.dht.routingTable.size > 0;
      if (hasPeers && !this.joined) for (const listener of this.listeners) listener();
      this.joined = hasPeers;
    }, JOIN_CHECK_MS);
    this.joinTimer.unref();
  }

  private dhtKey(key: string): Uint8Array {
    return encoder.encode(`/${this.options.namespace}/${key}`);
  }
}

/**
 * A libp2p node on `listen` (a TCP multiaddr) taking part in the service's DHT, applying `rules`
 * to the records of `namespace`. Exported for tests that need a foreign node on the same DHT.
 */
export async function startDhtNode(
  listen: string,
  namespace: string,
  rules: RecordRules,
): Promise<Libp2p<{ dht: SingleKadDHT }>> {
  const keyOf = (bytes: Uint8Array) => decoder.decode(bytes).slice(namespace.length + 2);
  return createLibp2p({
    addresses: { listen: [listen] },
    transports: [tcp()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    services: {
      identify: identify(),
      ping: ping(),
      dht: kadDHT({
        protocol: DHT_PROTOCOL,
        // Every api pod serves records; pods reach each other on private addresses.
        clientMode: false,
        peerInfoMapper: passthroughMapper,
        allowQueryWithZeroPeers: true,
        initialQuerySelfInterval: 0,
        validators: { [namespace]: async (key, value) => rules.validate(keyOf(key), value) },
        selectors: { [namespace]: (key, values) => rules.select(keyOf(key), values) },
        // kadDHT's declared type hides the routing table that this (single) DHT has.
      }) as (components: KadDHTComponents) => SingleKadDHT,
    },
  });
}
