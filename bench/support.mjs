// Shared pieces of the benchmarks: starting the built service as a child process, and running
// autocannon against a URL.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';

/** Starts `node dist/main.js` on free ports; resolves once it logged "service started". */
export async function startService(env = {}) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-bench-'));
  const child = spawn(process.execPath, ['dist/main.js'], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', GRPC_PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const started = await new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      for (const line of buffered.split('\n')) {
        if (line.includes('"service started"')) resolve(JSON.parse(line));
      }
      buffered = buffered.slice(buffered.lastIndexOf('\n') + 1);
    });
    child.once('exit', (code) => reject(new Error(`service exited with ${code}`)));
  });
  // Access-log lines are not read by the benchmark; keep the pipe drained.
  child.stdout.resume();
  return {
    httpPort: started.httpPort,
    grpcPort: started.grpcPort,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function load(url, { connections = 50, duration = 10, ...rest } = {}) {
  const result = await autocannon({ url, connections, duration, pipelining: 1, ...rest });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
  };
}

export function printTable(title, rows) {
  console.log(`\n## ${title}`);
  console.table(rows);
}
