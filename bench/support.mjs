// Shared pieces of the benchmarks: starting the built service as a child process, running
// autocannon against a URL, process CPU time and file limits, and the send loops.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';

/** A port that was free a moment ago (the OS hands out a fresh one for port 0). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Polls `base`/health/ready until it answers 200 (true), or `child` exits or 60 s pass (false):
 * on a machine shared with other jobs a start can take far longer than its usual second.
 */
async function answersReady(base, child) {
  for (let attempt = 0; attempt <= 600 && child.exitCode === null; attempt++) {
    const ready = await fetch(`${base}/health/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

/** Starts `node dist/main.js` on free ports and resolves once /health/ready answers 200. */
export async function startService({ BENCH_SERVICE_DIR: cwd, ...env } = {}) {
  // BENCH_SERVICE_DIR: another checkout's build (bench/tracing.mjs compares with the version
  // before tracing); not a setting of the service.
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-bench-'));
  const httpPort = await freePort();
  const grpcPort = await freePort();
  // BENCH_PROFILE=<dir>: the service writes a V8 CPU profile there when it stops.
  const profile = process.env.BENCH_PROFILE
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
    : [];
  const child = spawn(process.execPath, [...profile, 'dist/main.js'], {
    cwd,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(httpPort),
      GRPC_PORT: String(grpcPort),
      DATA_DIR: dataDir,
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  raiseFileLimit(child.pid);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  if (!(await answersReady(`http://127.0.0.1:${httpPort}`, child))) {
    child.kill('SIGKILL');
    throw new Error('the service did not become ready');
  }
  return {
    httpPort,
    grpcPort,
    pid: child.pid,
    dataDir,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Starts bench/baseline-server.mjs (the bare node:http baselines) with `env`; resolves with its port. */
export async function startBaselineServer(env = {}) {
  const child = spawn(
    process.execPath,
    [new URL('./baseline-server.mjs', import.meta.url).pathname],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise((resolve) =>
    child.stdout.once('data', (chunk) => resolve(Number(String(chunk).trim()))),
  );
  return {
    port,
    pid: child.pid,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

/**
 * Starts bench/ws-baseline-server.mjs (the plain `ws` fan-out baseline) with `nodeArgs` and
 * resolves once it answers; `base` is its HTTP address.
 */
export async function startWsBaselineServer(nodeArgs = []) {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [...nodeArgs, new URL('./ws-baseline-server.mjs', import.meta.url).pathname],
    { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  raiseFileLimit(child.pid);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
  };
  const base = `http://127.0.0.1:${port}`;
  if (!(await answersReady(base, child))) {
    await stop();
    throw new Error('the plain ws baseline server did not become ready');
  }
  return { port, pid: child.pid, base, stop };
}

/** Resident set size of a process in bytes (Linux). */
export function residentBytes(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)[1]) * 1024;
}

const CLOCK_TICKS_PER_SECOND =
  Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/**
 * CPU seconds (user + system) a process has used, all its threads (Linux /proc/<pid>/stat,
 * fields 14 and 15), or one thread's when `thread` is given (/proc/<pid>/task/<thread>/stat;
 * the main thread's id is the pid).
 */
export function processCpuSeconds(pid, thread = undefined) {
  const path = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
  const fields = readFileSync(path, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

/** Open files a benchmark process may hold: sockets on both ends of 20,000+ connections. */
const FILE_LIMIT = 65_536;

/**
 * Raises a process's open-file limit (soft and hard) with prlimit(1); the bench runs as root on
 * the build machine. Where that is not allowed the limit stays, and a large run fails with EMFILE.
 */
export function raiseFileLimit(pid) {
  try {
    execFileSync('prlimit', ['--pid', String(pid), `--nofile=${FILE_LIMIT}:${FILE_LIMIT}`], {
      stdio: 'ignore',
    });
  } catch {
    // Not permitted: keep the current limit.
  }
}

/** Runs `task(index)` for index = 0..count-1 with at most `concurrency` in flight. */
export async function inFlight(count, concurrency, task) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

/**
 * A cheap JSON POST for load generators: node:http with kept-alive connections (cheaper per
 * request than fetch), rejecting unless the status is 200. Resolves with the reply's text.
 */
export function jsonPoster(base, maxSockets = 64) {
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const { hostname, port } = new URL(base);
  const post = (path, body, headers, retried) =>
    new Promise((resolve, reject) => {
      const payload = JSON.stringify(body);
      const request = http.request(
        {
          agent,
          hostname,
          port,
          path,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(payload),
            ...headers,
          },
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk) => (text += chunk));
          response.on('end', () =>
            response.statusCode === 200
              ? resolve(text)
              : reject(new Error(`${path}: HTTP ${response.statusCode} ${text.slice(0, 200)}`)),
          );
        },
      );
      request.on('error', (error) => {
        // A kept-alive connection the server closed as idle just as this request went out on
        // it: the request never reached the server, and Node's documentation (`reusedSocket`)
        // says to send it again. Once: a second failure is a real one.
        if (!retried && request.reusedSocket && error.code === 'ECONNRESET')
          post(path, body, headers, true).then(resolve, reject);
        else reject(error);
      });
      request.end(payload);
    });
  return (path, body, headers = {}) => post(path, body, headers, false);
}

export async function load(url, { connections = 50, duration = 10, ...rest } = {}) {
  const result = await autocannon({ url, connections, duration, pipelining: 1, ...rest });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
  };
}

/**
 * Runs `send(i)` for i = 0..count-1 with at most `concurrency` in flight, timing each; `send`
 * returns an error text for an unexpected answer, which fails the run once the others are done.
 */
export async function timedRequests(count, concurrency, send) {
  const latencies = new Array(count);
  let failed;
  const startedAt = performance.now();
  await inFlight(count, concurrency, async (index) => {
    if (failed) return;
    const sentAt = performance.now();
    const problem = await send(index);
    latencies[index] = performance.now() - sentAt;
    if (problem) failed ??= new Error(`request ${index}: ${problem}`);
  });
  const seconds = (performance.now() - startedAt) / 1000;
  if (failed) throw failed;
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    requests: count,
    seconds: Number(seconds.toFixed(2)),
    perSecond: Math.round(count / seconds),
    p50: Number(percentile(sorted, 50).toFixed(1)),
    p99: Number(percentile(sorted, 99).toFixed(1)),
  };
}

export function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/**
 * One row of the performance targets (issue #29), as one greppable line:
 * `ratio <what>: <value> (target <op> <target>)`, e.g. printRatio('push through the queue /
 * web-push directly', 0.83, '>=', 0.8). `value` is a same-run ratio against a baseline measured
 * in the same run, or, for rows whose target is an absolute figure (p99 in ms), that figure.
 * Every line is also kept for the summary `npm run bench` prints at its end.
 */
export function printRatio(what, value, op, target) {
  const line = `ratio ${what}: ${Number(value.toFixed(2))} (target ${op} ${target})`;
  ratioLines.push(line);
  console.log(line);
}

const ratioLines = [];

/** The ratio lines printed so far in this process, in order. */
export function printedRatios() {
  return [...ratioLines];
}

export function printTable(title, rows) {
  console.log(`\n## ${title}`);
  console.table(rows);
}

/** POSTs a JSON body; resolves with the parsed reply, or rejects unless the status is 200. */
export async function postJson(url, body, headers = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 200)
    throw new Error(`${url}: HTTP ${response.status} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}
