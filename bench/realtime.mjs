// Realtime fan-out with thousands of connected clients: the service (`node dist/main.js`, role
// `all`, embedded store, in-process shared state, LOG_LEVEL=warn, rate limits off) against a
// baseline built on the plain `ws` library (bench/ws-baseline-server.mjs) in the same run.
//
// Shape: BENCH_WS_CLIENTS sockets (default 5,000) = users × devices (BENCH_WS_DEVICES per user,
// default 10). Messages go from user i to user i+1 over HTTP (POST /api/v1/send on the service,
// POST /send on the baseline), BENCH_WS_CONCURRENCY in flight (default 32). Every message is
// delivered to each device of the recipient and of the sender (multi-device sync), so one message
// is 2 × devices deliveries.
//
// Figures:
// - deliveries per second: socket deliveries over the time from the first send to the last
//   delivery, and messages per second;
// - send-to-receive latency, p50 and p99: from just before the HTTP send to the arrival at each of
//   the recipient's devices (the service persists the message durably first);
// - memory per idle connection: the server's resident set after the sockets are open and idle,
//   minus before, divided by the number of sockets.
// The client side (all sockets, all parsing) runs in this process on one core, the server in its
// own process on the other.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { startWithUsers } from './sign-in.mjs';
import { freePort, percentile, postJson, printTable, residentBytes } from './support.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Opens every socket (at most 200 handshakes at a time) and resolves when each got its greeting. */
export async function connectAll(count, open) {
  const sockets = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: 200 }, async () => {
      while (next < count) {
        const index = next++;
        sockets[index] = await new Promise((resolve, reject) => {
          const socket = open(index);
          socket.once('message', () => resolve(socket));
          socket.once('error', reject);
        });
      }
    }),
  );
  return sockets;
}

/**
 * Sends `count` messages user i → i+1 and waits for all deliveries. `socketsOfUser[u]` are the
 * devices of user u; `send(from, to, clientMessageId, ciphertext)` performs the HTTP send.
 */
async function fanOut({ users, socketsOfUser, send, count, concurrency, label }) {
  const sentAt = new Map();
  const latencies = [];
  let deliveries = 0;
  let lastDeliveryAt = 0;
  const devices = socketsOfUser[0].length;
  const expected = count * devices * 2;
  let allDelivered;
  const done = new Promise((resolve) => (allDelivered = resolve));
  socketsOfUser.forEach((sockets, user) => {
    for (const socket of sockets) {
      socket.removeAllListeners('message');
      socket.on('message', (data) => {
        const frame = JSON.parse(data.toString());
        if (frame.type !== 'message.new') return;
        const message = frame.data.message;
        const start = sentAt.get(message.client_message_id);
        if (start === undefined) return;
        const now = performance.now();
        if (message.recipient_address === String(user) || message.recipient_address === socketsOfUser.addresses?.[user]) latencies.push(now - start);
        deliveries += 1;
        lastDeliveryAt = now;
        if (deliveries === expected) allDelivered();
      });
    }
  });
  const ciphertext = randomBytes(256).toString('base64');
  const startedAt = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const index = next++;
        const from = index % users;
        const id = `${label}-${index}`;
        sentAt.set(id, performance.now());
        await send(from, (from + 1) % users, id, ciphertext);
      }
    }),
  );
  await Promise.race([done, sleep(60_000).then(() => Promise.reject(new Error(`${label}: ${deliveries} of ${expected} deliveries after 60 s`)))]);
  const seconds = (lastDeliveryAt - startedAt) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    messages: count,
    deliveries,
    'messages/s': Math.round(count / seconds),
    'deliveries/s': Math.round(deliveries / seconds),
    'p50 ms': Number(percentile(latencies, 50).toFixed(1)),
    'p99 ms': Number(percentile(latencies, 99).toFixed(1)),
  };
}

async function measureService({ clients, devices, messages, concurrency }) {
  const users = clients / devices;
  const { service, base, sessions, addresses } = await startWithUsers(users, `rt${Date.now().toString(36)}`);
  try {
    await sleep(1000);
    const before = residentBytes(service.pid);
    const sockets = await connectAll(clients, (i) => new WebSocket(`ws://127.0.0.1:${service.httpPort}/ws`, ['bearer', sessions[Math.floor(i / devices)].access_token]));
    await sleep(2000);
    const after = residentBytes(service.pid);
    const socketsOfUser = Array.from({ length: users }, (_, u) => sockets.slice(u * devices, (u + 1) * devices));
    socketsOfUser.addresses = addresses;
    const send = (from, to, id, ciphertext) =>
      postJson(`${base}/api/v1/send`, { client_message_id: id, recipient_address: addresses[to], ciphertext }, { authorization: `Bearer ${sessions[from].access_token}` });
    await fanOut({ users, socketsOfUser, send, count: Math.min(200, messages), concurrency, label: 'warm' });
    const result = await fanOut({ users, socketsOfUser, send, count: messages, concurrency, label: 'svc' });
    for (const socket of sockets) socket.terminate();
    return { ...result, 'KiB per idle connection': Number(((after - before) / clients / 1024).toFixed(1)) };
  } finally {
    await service.stop();
  }
}

async function measureBaseline({ clients, devices, messages, concurrency }) {
  const users = clients / devices;
  const port = await freePort();
  const child = spawn(process.execPath, ['bench/ws-baseline-server.mjs'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const base = `http://127.0.0.1:${port}`;
  try {
    while (!(await fetch(`${base}/health/ready`).then((r) => r.ok, () => false))) await sleep(50);
    await sleep(1000);
    const before = residentBytes(child.pid);
    const sockets = await connectAll(clients, (i) => new WebSocket(`ws://127.0.0.1:${port}/ws?user=${Math.floor(i / devices)}`));
    await sleep(2000);
    const after = residentBytes(child.pid);
    const socketsOfUser = Array.from({ length: users }, (_, u) => sockets.slice(u * devices, (u + 1) * devices));
    const send = (from, to, id, ciphertext) => postJson(`${base}/send`, { from: String(from), to: String(to), client_message_id: id, ciphertext });
    await fanOut({ users, socketsOfUser, send, count: Math.min(200, messages), concurrency, label: 'warm' });
    const result = await fanOut({ users, socketsOfUser, send, count: messages, concurrency, label: 'ws' });
    for (const socket of sockets) socket.terminate();
    return { ...result, 'KiB per idle connection': Number(((after - before) / clients / 1024).toFixed(1)) };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

export async function benchRealtime({
  clients = Number(process.env.BENCH_WS_CLIENTS ?? 5000),
  devices = Number(process.env.BENCH_WS_DEVICES ?? 10),
  messages = Number(process.env.BENCH_WS_MESSAGES ?? 2000),
  concurrency = Number(process.env.BENCH_WS_CONCURRENCY ?? 32),
} = {}) {
  if (clients % devices !== 0) throw new Error('BENCH_WS_CLIENTS must be a multiple of BENCH_WS_DEVICES');
  const shape = { clients, devices, messages, concurrency };
  const baseline = await measureBaseline(shape);
  const service = await measureService(shape);
  printTable(`/ws fan-out: ${clients} connected clients (${clients / devices} users × ${devices} devices), ${messages} messages, ${concurrency} sends in flight`, {
    'plain ws baseline': baseline,
    service: service,
  });
  console.log(`ratio service / baseline: deliveries/s ${(service['deliveries/s'] / baseline['deliveries/s']).toFixed(2)}, p99 ${(service['p99 ms'] / baseline['p99 ms']).toFixed(2)}, memory per idle connection ${(service['KiB per idle connection'] / baseline['KiB per idle connection']).toFixed(2)}`);
  return { baseline, service };
}
