// Redis commands per send and per delivery: the service (`node dist/main.js`, role `all`,
// embedded store, LOG_LEVEL=warn, rate limits off) on a Redis of this benchmark's own
// (`redis-server` on a free port, nothing else talks to it), so that `INFO commandstats` before
// and after a fixed number of sends counts exactly what those sends cost Redis. Feeds
// docs/capacity.md, which turns these counts into Redis shards.
//
// Rows (BENCH_REDIS_SENDS messages each, default 200, after an untimed warm-up, 8 in flight):
// - direct: user i to user i + 1, every user connected on /ws with one device, so each send is
//   delivered twice (the recipient and the sender's own device);
// - group: a group of BENCH_REDIS_GROUP_MEMBERS (default 10) members, each connected with one
//   device; every member receives each message.
// Rate limits are off, so the counts leave out the rate limiter's one script per request
// (one EVALSHA each; a production deployment adds it to every authenticated call).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { startWithUsers } from './sign-in.mjs';
import { freePort, postJson, printTable } from './support.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function startRedis() {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const cli = (...args) =>
    new Promise((resolve, reject) => {
      const run = spawn('redis-cli', ['-p', String(port), ...args]);
      let out = '';
      run.stdout.on('data', (chunk) => (out += chunk));
      run.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`redis-cli ${args.join(' ')}: exit ${code}`))));
    });
  for (let attempt = 0; !(await cli('ping').then((out) => out.includes('PONG'), () => false)); attempt++) {
    if (attempt > 100) throw new Error('redis-server did not start');
    await sleep(50);
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    /** Calls and Redis CPU µs per command since the server started, from INFO commandstats. */
    async commandStats() {
      const stats = {};
      for (const [, name, calls, usec] of (await cli('info', 'commandstats')).matchAll(/^cmdstat_([\w|]+):calls=(\d+),usec=(\d+)/gm)) stats[name] = { calls: Number(calls), usec: Number(usec) };
      return stats;
    },
    async stop() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Sends `count` messages, `concurrency` in flight, and waits until `deliveries` frames arrived. */
async function sendAndDeliver({ sockets, send, count, deliveries, concurrency = 8 }) {
  let received = 0;
  let allArrived;
  const arrived = new Promise((resolve) => (allArrived = resolve));
  for (const socket of sockets) {
    socket.removeAllListeners('message');
    socket.on('message', (data) => {
      if (JSON.parse(data.toString()).type === 'message.new' && ++received === deliveries) allArrived();
    });
  }
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await send(next++);
    }),
  );
  await Promise.race([arrived, sleep(60_000).then(() => Promise.reject(new Error(`${received} of ${deliveries} deliveries after 60 s`)))]);
  await sleep(500); // what a delivery triggers after its frame (acks, read receipts) settles
}

/** The commands that ran, per send and per delivery, with the Redis CPU time they took (µs). */
function perSend(before, after, sends, deliveries) {
  const rows = {};
  const total = { calls: 0, usec: 0 };
  const row = ({ calls, usec }) => ({
    calls,
    'per send': Number((calls / sends).toFixed(2)),
    'per delivery': Number((calls / deliveries).toFixed(2)),
    'Redis µs per send': Number((usec / sends).toFixed(1)),
  });
  for (const [name, { calls, usec }] of Object.entries(after)) {
    const delta = { calls: calls - (before[name]?.calls ?? 0), usec: usec - (before[name]?.usec ?? 0) };
    if (delta.calls <= 0 || name === 'info') continue;
    total.calls += delta.calls;
    total.usec += delta.usec;
    rows[name] = row(delta);
  }
  rows.total = row(total);
  return rows;
}

export async function benchRedisCommands({
  sends = Number(process.env.BENCH_REDIS_SENDS ?? 200),
  members = Number(process.env.BENCH_REDIS_GROUP_MEMBERS ?? 10),
} = {}) {
  const redis = await startRedis();
  try {
    const { service, base, sessions, addresses } = await startWithUsers(members, `rc${Date.now().toString(36)}`, { REDIS_URL: redis.url });
    const sockets = [];
    try {
      const auth = (user) => ({ authorization: `Bearer ${sessions[user].access_token}` });
      const group = await postJson(`${base}/api/v1/groups/create`, { name: 'Bench', member_addresses: addresses.slice(1) }, auth(0));
      for (const session of sessions) {
        sockets.push(
          await new Promise((resolve, reject) => {
            const socket = new WebSocket(`ws://127.0.0.1:${service.httpPort}/ws`, ['bearer', session.access_token]);
            socket.once('message', () => resolve(socket));
            socket.once('error', reject);
          }),
        );
      }
      const ciphertext = randomBytes(256).toString('base64');
      const direct = (label) => (index) =>
        postJson(`${base}/api/v1/send`, { client_message_id: `${label}-${index}`, recipient_address: addresses[(index + 1) % members], ciphertext }, auth(index % members));
      const toGroup = (label) => (index) => postJson(`${base}/api/v1/send`, { client_message_id: `${label}-${index}`, group_id: group.group.id, ciphertext }, auth(index % members));
      await sendAndDeliver({ sockets, send: direct('warm'), count: 50, deliveries: 100 });
      await sendAndDeliver({ sockets, send: toGroup('warm-group'), count: 10, deliveries: 10 * members });
      const measure = async (send, deliveries) => {
        const before = await redis.commandStats();
        await sendAndDeliver({ sockets, send, count: sends, deliveries });
        return perSend(before, await redis.commandStats(), sends, deliveries);
      };
      printTable(`Redis commands, ${sends} direct messages (2 deliveries each), all users connected`, await measure(direct('direct'), 2 * sends));
      printTable(`Redis commands, ${sends} messages to a group of ${members} (${members} deliveries each)`, await measure(toGroup('group'), members * sends));
    } finally {
      for (const socket of sockets) socket.terminate();
      await service.stop();
    }
  } finally {
    await redis.stop();
  }
}
