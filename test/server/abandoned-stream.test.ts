/**
 * A streamed response (a media download reading a file) whose client left while the handler
 * was still working is never written: the server closes its source at once, so the open file is
 * not held until garbage collection. Over real HTTP: the client disconnects, then the handler
 * answers with a read stream of a real file.
 */
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { ReadStream } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger } from '../../src/platform/logging/logger.js';
import { createMetrics } from '../../src/platform/metrics/metrics.js';
import { startHttpServer } from '../../src/server/http-server.js';
import type { RunningHttpServer } from '../../src/server/http-server.js';
import { abandonedRequest } from '../support/http-from.js';

const dir = mkdtempSync(path.join(tmpdir(), 'abandoned-stream-'));
const file = path.join(dir, 'blob');
writeFileSync(file, Buffer.alloc(64 * 1024, 7));
let server: RunningHttpServer | undefined;
afterAll(async () => {
  await server?.close(1000);
  rmSync(dir, { recursive: true, force: true });
});

it('closes the source of a streamed response whose client left before it was written', async () => {
  let received!: () => void;
  const requestArrived = new Promise<void>((resolve) => (received = resolve));
  let release!: () => void;
  const clientGone = new Promise<void>((resolve) => (release = resolve));
  let source!: ReadStream;
  server = await startHttpServer({
    host: '127.0.0.1',
    port: 0,
    maxBodyBytes: 1024,
    logger: createLogger('silent'),
    metrics: createMetrics(),
    dispatch: async () => {
      received();
      await clientGone;
      source = createReadStream(file);
      return {
        status: 200,
        headers: [],
        body: '',
        stream: { length: 64 * 1024, chunks: source },
        routeLabel: 'download',
      };
    },
  });

  await abandonedRequest(server.port, '/download', requestArrived);
  release();
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(source.destroyed).toBe(true);
});
