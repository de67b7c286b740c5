/**
 * A TCP proxy in front of the real Redis, to stage what a network does to a service:
 * `freeze()` stops traffic both ways on every connection (a hung server or a black hole),
 * `cut()` drops every connection and refuses new ones (Redis gone), `restore()` ends both.
 */
import net from 'node:net';

export interface TcpProxy {
  /** redis://127.0.0.1:<proxy port> */
  url: string;
  freeze(): void;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetUrl: string): Promise<TcpProxy> {
  const target = new URL(targetUrl);
  const sockets = new Set<net.Socket>();
  let mode: 'open' | 'frozen' | 'cut' = 'open';

  const server = net.createServer((client) => {
    if (mode === 'cut') {
      client.destroy();
      return;
    }
    const upstream = net.connect(Number(target.port || 6379), target.hostname);
    for (const [socket, peer] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(socket);
      socket.pipe(peer);
      socket.on('error', () => peer.destroy());
      socket.on('close', () => {
        sockets.delete(socket);
        peer.destroy();
      });
      if (mode === 'frozen') socket.pause();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;

  return {
    url: `redis://127.0.0.1:${port}`,
    freeze() {
      mode = 'frozen';
      for (const socket of sockets) socket.pause();
    },
    cut() {
      mode = 'cut';
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      mode = 'open';
      for (const socket of sockets) socket.resume();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
