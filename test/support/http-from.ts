import net from 'node:net';
import { request } from 'node:http';

export interface ResponseFrom {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * A request sent from a chosen local source address (Linux routes all of 127.0.0.0/8 to lo, so
 * a test can be several distinct loopback clients). A `json` body is sent as application/json.
 */
export function requestFrom(
  url: string,
  localAddress: string,
  options: { method?: string; headers?: Record<string, string>; json?: unknown } = {},
): Promise<ResponseFrom> {
  const body = options.json === undefined ? undefined : JSON.stringify(options.json);
  const headers =
    body === undefined
      ? { ...options.headers }
      : { 'content-type': 'application/json', ...options.headers };
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: options.method ?? 'GET', localAddress, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            headers: res.headers,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A GET from `localAddress`: the status and the body text. */
export async function getFrom(
  url: string,
  localAddress: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const { status, body } = await requestFrom(url, localAddress, { headers });
  return { status, body };
}

/**
 * Sends `GET path` on a raw connection, and once `arrived` says the server's handler has it,
 * closes the connection and gives the server's loop a moment to see the close (its onAborted):
 * a client that went away while its request was being worked on.
 */
export async function abandonedRequest(
  port: number,
  path: string,
  arrived: Promise<void>,
  localAddress?: string,
): Promise<void> {
  const socket = net.connect({
    host: '127.0.0.1',
    port,
    ...(localAddress ? { localAddress } : {}),
  });
  socket.on('error', () => undefined);
  socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
  await arrived;
  const closed = new Promise((resolve) => socket.once('close', resolve));
  socket.destroy();
  await closed;
  await new Promise((resolve) => setTimeout(resolve, 200));
}
