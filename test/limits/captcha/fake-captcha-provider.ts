/**
 * A local stand-in for a siteverify endpoint. The token chooses the behaviour:
 * "good" is accepted, "slow" answers after `slowMs`, "fail" gets HTTP 500, "junk" a body that
 * is not JSON; any other token is refused. Every received form is recorded.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeCaptchaProvider {
  readonly url: string;
  readonly received: { contentType: string | undefined; form: Record<string, string> }[];
  close(): Promise<void>;
}

export async function startFakeCaptchaProvider(
  expectedSecret: string,
  slowMs = 1_000,
): Promise<FakeCaptchaProvider> {
  const received: FakeCaptchaProvider['received'] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      received.push({ contentType: req.headers['content-type'], form });
      const answer = (status: number, body: string) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(body);
      };
      if (req.method !== 'POST') return answer(405, '{}');
      if (form.secret !== expectedSecret)
        return answer(
          200,
          JSON.stringify({ success: false, 'error-codes': ['invalid-input-secret'] }),
        );
      switch (form.response) {
        case 'good':
          return answer(200, JSON.stringify({ success: true, hostname: 'localhost' }));
        case 'slow': {
          const timer = setTimeout(() => {
            timers.delete(timer);
            answer(200, JSON.stringify({ success: true }));
          }, slowMs);
          timers.add(timer);
          return;
        }
        case 'fail':
          return answer(500, JSON.stringify({ error: 'internal' }));
        case 'junk':
          return answer(200, '<html>oops</html>');
        default:
          return answer(
            200,
            JSON.stringify({ success: false, 'error-codes': ['invalid-input-response'] }),
          );
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/siteverify`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
