/**
 * A real EVM for the contract-wallet tests, offline: ganache's JSON-RPC HTTP server on a
 * loopback port, behind a TCP relay the test can stop (connections refused), freeze
 * (connections accepted, never answered) and restart, so the service meets a real outage of its
 * endpoint while the chain keeps its state. The test's own transactions go to ganache directly.
 */
import net from 'node:net';
import ganache from 'ganache';
import { createPublicClient, createWalletClient, defineChain, http } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { PrivateKeyAccount } from 'viem/accounts';
import { freePort } from '../ports.js';

export const CHAIN_ID = 1337;

export class LocalChain {
  private readonly privateKeyHex = generatePrivateKey();
  /** Funded at genesis: deploys the contracts and sends the owners' transactions' gas. */
  readonly deployer: PrivateKeyAccount = privateKeyToAccount(this.privateKeyHex);
  private server: ReturnType<typeof ganache.server> | undefined;
  private relay: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  private chainPort = 0;
  private frozen = false;
  relayPort = 0;

  /** The endpoint the service is configured with (through the relay). */
  get rpcUrl(): string {
    return `http://127.0.0.1:${this.relayPort}`;
  }

  readonly chain = defineChain({
    id: CHAIN_ID,
    name: 'ganache',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: ['http://127.0.0.1'] } },
  });

  async start(): Promise<void> {
    // ganache's published typings resolve its options to `undefined` here: the options are the
    // documented ones (https://github.com/trufflesuite/ganache#startup-options).
    this.server = ganache.server({
      chain: { hardfork: 'shanghai', chainId: CHAIN_ID },
      logging: { quiet: true },
      wallet: {
        accounts: [{ secretKey: this.privateKeyHex, balance: `0x${(10n ** 21n).toString(16)}` }],
      },
    } as never);
    this.chainPort = await freePort();
    await this.server.listen(this.chainPort, '127.0.0.1');
    this.relayPort = await freePort();
    await this.openRelay();
  }

  get publicClient() {
    return createPublicClient({
      chain: this.chain,
      transport: http(`http://127.0.0.1:${this.chainPort}`),
    });
  }

  get walletClient() {
    return createWalletClient({
      account: this.deployer,
      chain: this.chain,
      transport: http(`http://127.0.0.1:${this.chainPort}`),
    });
  }

  /** The relay refuses connections: the endpoint is down. */
  async stopRelay(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) =>
      this.relay ? this.relay.close(() => resolve()) : resolve(),
    );
    this.relay = undefined;
  }

  /** Connections are accepted and never answered: the endpoint hangs. */
  freeze(frozen: boolean): void {
    this.frozen = frozen;
  }

  async openRelay(): Promise<void> {
    this.relay = net.createServer((client) => {
      this.sockets.add(client);
      client.on('close', () => this.sockets.delete(client));
      client.on('error', () => undefined);
      if (this.frozen) return;
      const upstream = net.connect(this.chainPort, '127.0.0.1');
      upstream.on('error', () => client.destroy());
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.relay!.listen(this.relayPort, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    await this.stopRelay();
    await this.server?.close();
  }
}
