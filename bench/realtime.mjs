// Realtime fan-out with thousands of connected clients: the service (`node dist/main.js`, role
// `all`, embedded store, in-process shared state, LOG_LEVEL=warn, rate limits off) against a
// baseline built on the plain `ws` library (bench/ws-baseline-server.mjs) in the same run.
//
// Shape: N sockets = users × devices (BENCH_WS_DEVICES per user, default 10), for each N of the
// curve BENCH_WS_CURVE (comma-separated, default "1000,5000"; the full curve is
// "1000,5000,20000"). Messages go from user i to user i+1 over HTTP (POST /api/v1/send on the
// service, POST /send on the baseline). Every message is delivered to each device of the
// recipient and of the sender (multi-device sync), so one message is 2 × devices deliveries.
// Two rounds per server and N, after an untimed warm-up of 200 messages:
// - as fast as the server answers: BENCH_WS_MESSAGES messages (default 2,000) with
//   BENCH_WS_CONCURRENCY in flight (default 32);
// - at a fixed offered load: BENCH_WS_RATE sends per second (default 500) for
//   BENCH_WS_RATE_SECONDS (default 5), started on schedule whatever the answers.
//
// BENCH_WS_SERVERS=service (or baseline) measures one side only, for profiling with BENCH_PROFILE.
//
// Figures (bench/fan-out.mjs): deliveries per second (from the first send to the last delivery),
// send-to-receive latency p50/p99 at the recipient's devices (the service persists the message
// durably first), the server process's CPU time per delivery and its CPU use, the client's own
// CPU use (a client near 100 % would be the bottleneck), and memory per idle connection: the
// server's resident set and its JS heap in use once the sockets are open and idle, minus once the
// first tenth of them were, over the other nine tenths, each read after a full garbage collection
// (bench/idle-memory.mjs).
// The client (all sockets) runs in this process, the server in its own.
import { randomBytes } from 'node:crypto';
import { connectAll, measureRound, openSocket, serviceEndpoints } from './fan-out.mjs';
import { inspectFlag, retainedMemory } from './idle-memory.mjs';
import { startWithUsers } from './sign-in.mjs';
import {
  freePort,
  jsonPoster,
  printRatio,
  printTable,
  raiseFileLimit,
  startWsBaselineServer,
} from './support.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const perConnection = (before, after, clients) => ({
  'KiB per idle connection': Number(((after.rss - before.rss) / clients / 1024).toFixed(1)),
  'heap bytes per idle connection': Math.round((after.heap - before.heap) / clients),
});

/**
 * Opens `clients` sockets on a started server, then measures the two rounds. `server`: its pid,
 * its inspector's port, how to open socket i of user u, and
 * `send(from, to, clientMessageId, ciphertext)`.
 */
async function measureServer(
  { pid, inspectPort, open, send },
  { clients, devices, messages, concurrency, rate, rateSeconds },
) {
  const users = clients / devices;
  // The first tenth of the users' sockets open before the first reading: what the first
  // connections cost once (code compiled, modules loaded, caches filled) is not a cost per
  // connection, and would make the figure at 1,000 sockets say little about the next ones.
  const first = devices * Math.ceil(users / 10);
  const opened = await connectAll(first, (i) => open(Math.floor(i / devices)));
  await sleep(1000);
  const before = await retainedMemory(pid, inspectPort);
  const rest = await connectAll(clients - first, (i) => open(Math.floor((first + i) / devices)));
  await sleep(2000);
  const after = await retainedMemory(pid, inspectPort);
  const sockets = [...opened, ...rest];
  const socketsOfUser = Array.from({ length: users }, (_, u) =>
    sockets.slice(u * devices, (u + 1) * devices),
  );
  const ciphertext = randomBytes(256).toString('base64');
  const round = (label, shape) =>
    measureRound({
      socketsOfUser,
      pid,
      label,
      fanOut: devices * 2,
      send: (index, id) => send(index % users, (index + 1) % users, id, ciphertext),
      // The recipient of message i is user i + 1.
      timed: (user, index) => user === (index + 1) % users,
      ...shape,
    });
  await round('warm', { count: Math.min(200, messages), concurrency });
  const fastest = await round('max', { count: messages, concurrency });
  const fixed = await round('fixed', { count: rate * rateSeconds, rate });
  for (const socket of sockets) socket.terminate();
  return { fastest, fixed, ...perConnection(before, after, clients - first) };
}

/** The service's side of one point of the curve; `env` adds settings (bench/tracing.mjs). */
export async function measureService(shape, env = {}) {
  const inspectPort = await freePort();
  const { service, base, sessions, addresses } = await startWithUsers(
    shape.clients / shape.devices,
    `rt${Date.now().toString(36)}`,
    { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} ${inspectFlag(inspectPort)}`, ...env },
  );
  try {
    const { open, direct } = serviceEndpoints(service, jsonPoster(base), sessions, addresses);
    return await measureServer({ pid: service.pid, inspectPort, open, send: direct }, shape);
  } finally {
    await service.stop();
  }
}

async function measureBaseline(shape) {
  const inspectPort = await freePort();
  const baseline = await startWsBaselineServer([inspectFlag(inspectPort)]);
  try {
    const post = jsonPoster(baseline.base);
    return await measureServer(
      {
        pid: baseline.pid,
        inspectPort,
        open: (user) => openSocket(`ws://127.0.0.1:${baseline.port}/ws?user=${user}`),
        send: (from, to, id, ciphertext) =>
          post('/send', { from: String(from), to: String(to), client_message_id: id, ciphertext }),
      },
      shape,
    );
  } finally {
    await baseline.stop();
  }
}

const CPU = 'server CPU µs per delivery';

const idleMemory = (server) =>
  `${server['KiB per idle connection']} KiB resident, ${server['heap bytes per idle connection']} bytes of JS heap`;

/** Memory per idle connection: the service's resident figure is a target (a ratio line). */
function printIdleMemory(clients, baseline, service) {
  if (baseline)
    console.log(`plain ws memory per idle connection at ${clients}: ${idleMemory(baseline)}`);
  if (!service) return;
  console.log(`service memory per idle connection at ${clients}: ${idleMemory(service)}`);
  printRatio(
    `memory per idle connection KiB at ${clients}`,
    service['KiB per idle connection'],
    '<=',
    2,
  );
}

const ratio = (service, baseline, field) => (service[field] / baseline[field]).toFixed(2);

export async function benchRealtime({
  curve = (process.env.BENCH_WS_CURVE ?? '1000,5000').split(',').map(Number),
  devices = Number(process.env.BENCH_WS_DEVICES ?? 10),
  messages = Number(process.env.BENCH_WS_MESSAGES ?? 2000),
  concurrency = Number(process.env.BENCH_WS_CONCURRENCY ?? 32),
  rate = Number(process.env.BENCH_WS_RATE ?? 500),
  rateSeconds = Number(process.env.BENCH_WS_RATE_SECONDS ?? 5),
  servers = (process.env.BENCH_WS_SERVERS ?? 'baseline,service').split(','),
} = {}) {
  raiseFileLimit(process.pid);
  const points = [];
  for (const clients of curve) {
    if (clients % devices !== 0)
      throw new Error(
        'every socket count of BENCH_WS_CURVE must be a multiple of BENCH_WS_DEVICES',
      );
    const shape = { clients, devices, messages, concurrency, rate, rateSeconds };
    const baseline = servers.includes('baseline') ? await measureBaseline(shape) : undefined;
    // BENCH_SERVICE_DIR: another checkout's build, for a before/after run in one session.
    const serviceDir = process.env.BENCH_SERVICE_DIR;
    const service = servers.includes('service')
      ? await measureService(shape, serviceDir ? { BENCH_SERVICE_DIR: serviceDir } : {})
      : undefined;
    printIdleMemory(clients, baseline, service);
    if (!baseline || !service) {
      printTable(`/ws fan-out: ${clients} connected clients, ${servers.join(' ')} only`, {
        [`${concurrency} in flight`]: (baseline ?? service).fastest,
        [`${rate} sends/s`]: (baseline ?? service).fixed,
      });
      continue;
    }
    printTable(
      `/ws fan-out: ${clients} connected clients (${clients / devices} users × ${devices} devices); ${messages} messages with ${concurrency} in flight, then ${rate} sends/s for ${rateSeconds} s`,
      {
        [`plain ws, ${concurrency} in flight`]: baseline.fastest,
        [`service, ${concurrency} in flight`]: service.fastest,
        [`plain ws, ${rate} sends/s`]: baseline.fixed,
        [`service, ${rate} sends/s`]: service.fixed,
      },
    );
    console.log(
      `ratio service / baseline at ${clients} sockets: ${CPU} ${ratio(service.fastest, baseline.fastest, CPU)} (at ${rate} sends/s ${ratio(service.fixed, baseline.fixed, CPU)}), ` +
        `deliveries/s ${ratio(service.fastest, baseline.fastest, 'deliveries/s')}, p99 at ${rate} sends/s ${ratio(service.fixed, baseline.fixed, 'p99 ms')} ` +
        `(${service.fixed['p99 ms']} against ${baseline.fixed['p99 ms']} ms), memory per idle connection ${ratio(service, baseline, 'KiB per idle connection')} ` +
        `(${service['KiB per idle connection']} against ${baseline['KiB per idle connection']} KiB)`,
    );
    const at = `${clients} sockets`;
    printRatio(
      `/ws CPU per delivery, service / plain ws, ${at}`,
      Number(ratio(service.fastest, baseline.fastest, CPU)),
      '<=',
      2,
    );
    printRatio(
      `/ws deliveries/s, service / plain ws, ${at}`,
      Number(ratio(service.fastest, baseline.fastest, 'deliveries/s')),
      '>=',
      0.7,
    );
    printRatio(
      `p99 send to delivery at ${rate} sends/s, ${at} (ms)`,
      service.fixed['p99 ms'],
      '<=',
      20,
    );
    points.push({ clients, baseline, service });
  }
  if (points.length > 1) {
    printTable(
      '/ws fan-out curve (as fast as the server answers)',
      Object.fromEntries(
        points.flatMap(({ clients, baseline, service }) => [
          [
            `${clients} sockets, plain ws`,
            { 'deliveries/s': baseline.fastest['deliveries/s'], [CPU]: baseline.fastest[CPU] },
          ],
          [
            `${clients} sockets, service`,
            { 'deliveries/s': service.fastest['deliveries/s'], [CPU]: service.fastest[CPU] },
          ],
        ]),
      ),
    );
  }
  if (points.length === 0) return undefined;
  const reference = points.find((point) => point.clients === 5000) ?? points[points.length - 1];
  return { baseline: reference.baseline.fastest, service: reference.service.fastest };
}
