import { request } from 'node:http';

/**
 * A GET sent from a chosen local source address (Linux routes all of 127.0.0.0/8 to lo, so a
 * test can be several distinct loopback clients). Resolves with the status and the body text.
 */
export function getFrom(
  url: string,
  localAddress: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', localAddress, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}
