// The bare node:http baselines, in a process of their own: for the gateway benchmark, GET
// /api/v1/version with the same status, headers and bytes as the service; for the media one,
// GET /files/<name>: the file of that name in BASELINE_FILES_DIR streamed from disk
// (fs.createReadStream piped to the response), whole or one `Range: bytes=<first>-[<last>]`
// as a 206.
import { createReadStream, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const body = JSON.stringify({
  success: true,
  message: 'API version information',
  data: { version: 'v1', deprecated: false, supported_versions: ['v1'], current_path: '/api/v1' },
});
function sendFile(req, res) {
  const file = path.join(process.env.BASELINE_FILES_DIR ?? '', path.basename(req.url));
  const size = statSync(file).size;
  const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
  const start = range ? Number(range[1]) : 0;
  const end = range?.[2] ? Number(range[2]) : size - 1;
  res.writeHead(range ? 206 : 200, {
    'Content-Type': 'application/octet-stream',
    'Content-Length': end - start + 1,
    ...(range ? { 'Content-Range': `bytes ${start}-${end}/${size}` } : {}),
  });
  createReadStream(file, { start, end }).pipe(res);
}

const server = http.createServer((req, res) => {
  if (req.url.startsWith('/files/')) return sendFile(req, res);
  res.writeHead(200, {
    'Content-Type': 'application/json',
    'X-API-Version': 'v1',
    'X-API-Stability': 'stable',
    'X-Request-Id': req.headers['x-request-id'] ?? '00000000-0000-0000-0000-000000000000',
  });
  res.end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
