// The bare node:http baseline of the gateway benchmark: answers GET /api/v1/version with the
// same status, headers and bytes as the service, and nothing else.
import http from 'node:http';

const body = JSON.stringify({
  success: true,
  message: 'API version information',
  data: { version: 'v1', deprecated: false, supported_versions: ['v1'], current_path: '/api/v1' },
});
const server = http.createServer((req, res) => {
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
