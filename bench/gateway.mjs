// REST gateway throughput and latency for GET /api/v1/version against a bare node:http handler
// returning the same bytes, measured in the same run. Each server runs in its own process.
import { spawn } from 'node:child_process';
import { load, printTable, startService } from './support.mjs';

async function startBaseline() {
  const child = spawn(process.execPath, [new URL('./baseline-server.mjs', import.meta.url).pathname], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((resolve) => child.stdout.once('data', (chunk) => resolve(Number(String(chunk).trim()))));
  return { port, stop: () => new Promise((resolve) => { child.once('exit', resolve); child.kill('SIGTERM'); }) };
}

export async function benchGateway({ duration }) {
  const baseline = await startBaseline();
  const bare = await load(`http://127.0.0.1:${baseline.port}/api/v1/version`, { duration });
  await baseline.stop();

  // Access logs at info would measure stdout, not the gateway: run at warn, as documented. The
  // per-IP bucket (100 per minute) would refuse a load test from one address: limits are off.
  const service = await startService({ LOG_LEVEL: 'warn', RATE_LIMITS_ENABLED: 'false' });
  await load(`http://127.0.0.1:${service.httpPort}/api/v1/version`, { duration: 2 }); // warm-up
  const gateway = await load(`http://127.0.0.1:${service.httpPort}/api/v1/version`, { duration });
  await service.stop();

  printTable('GET /api/v1/version: REST gateway vs bare node:http (50 connections)', {
    'bare node:http': bare,
    'REST gateway': gateway,
  });
  console.log(`gateway / bare throughput ratio: ${(gateway.requestsPerSecond / bare.requestsPerSecond).toFixed(2)}`);
}
