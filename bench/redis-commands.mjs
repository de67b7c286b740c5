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
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const cli = (...args) =>
    new Promise((resolve, reject) => {
      const run = spawn('redis-cli', ['-p', String(port), ...args]);
      let out = '';
      run.stdout.on('data', (chunk) => (out += chunk));
      run.once('exit', (code) =>
        code === 0 ? resolve(out) : reject(new Error(`redis-cli ${args.join(' ')}: exit ${code}`)),
      );
    });
  for (
    let attempt = 0;
    !(await cli('ping').then(
      (out) => out.includes('PONG'),
      () => false,
    ));
    attempt++
  ) {
    if (attempt > 100) throw new Error('redis-server did not start');
    await sleep(50);
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    /**
     * Calls per command since the server started (INFO commandstats; a command a script runs is
     * counted too, under its own name), and the CPU seconds of Redis's main thread (INFO cpu:
     * commands, scripts, pub/sub delivery and networking, each counted once), and the bytes
     * Redis holds (INFO memory `used_memory`: what the sends leave behind, the replay log first).
     */
    async stats() {
      const calls = {};
      for (const [, name, count] of (await cli('info', 'commandstats')).matchAll(
        /^cmdstat_([\w|]+):calls=(\d+)/gm,
      ))
        calls[name] = Number(count);
      const info = (await cli('info', 'cpu')) + (await cli('info', 'memory'));
      const field = (name) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)[1]);
      return {
        calls,
        cpuSeconds: field('used_cpu_user_main_thread') + field('used_cpu_sys_main_thread'),
        usedMemory: field('used_memory'),
      };
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
      if (JSON.parse(data.toString()).type === 'message.new' && ++received === deliveries)
        allArrived();
    });
  }
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await send(next++);
    }),
  );
  await Promise.race([
    arrived,
    sleep(60_000).then(() =>
      Promise.reject(new Error(`${received} of ${deliveries} deliveries after 60 s`)),
    ),
  ]);
  await sleep(500); // what a delivery triggers after its frame (acks, read receipts) settles
}

/** What happened in Redis between two `stats()`. */
function difference(before, after) {
  const calls = {};
  for (const [name, count] of Object.entries(after.calls))
    if (name !== 'info') calls[name] = count - (before.calls[name] ?? 0);
  return {
    calls,
    cpuSeconds: after.cpuSeconds - before.cpuSeconds,
    usedMemory: after.usedMemory - before.usedMemory,
  };
}

/**
 * The commands the sends caused, per send and per delivery, and Redis's CPU time per send: the
 * measured window minus an idle window as long (the background work of the service: the mirror
 * keeper's marker checks, the sweepers).
 */
function perSend(measured, idle, sends, deliveries) {
  const rows = {};
  for (const [name, calls] of Object.entries(measured.calls)) {
    const caused = calls - (idle.calls[name] ?? 0);
    if (caused > 0)
      rows[name] = {
        calls: caused,
        'per send': Number((caused / sends).toFixed(2)),
        'per delivery': Number((caused / deliveries).toFixed(2)),
        'idle window': idle.calls[name] ?? 0,
      };
  }
  const cpuMicros = ((measured.cpuSeconds - idle.cpuSeconds) * 1e6) / sends;
  const bytes = (measured.usedMemory - Math.max(0, idle.usedMemory)) / sends;
  return {
    rows,
    summary: `Redis main-thread CPU: ${cpuMicros.toFixed(0)} µs per send, ${((cpuMicros * sends) / deliveries).toFixed(0)} µs per delivery; memory kept: ${bytes.toFixed(0)} bytes per send`,
  };
}

export async function benchRedisCommands({
  sends = Number(process.env.BENCH_REDIS_SENDS ?? 200),
  members = Number(process.env.BENCH_REDIS_GROUP_MEMBERS ?? 10),
} = {}) {
  const redis = await startRedis();
  try {
    const { service, base, sessions, addresses } = await startWithUsers(
      members,
      `rc${Date.now().toString(36)}`,
      { REDIS_URL: redis.url },
    );
    const sockets = [];
    try {
      const auth = (user) => ({ authorization: `Bearer ${sessions[user].access_token}` });
      const group = await postJson(
        `${base}/api/v1/groups/create`,
        { name: 'Bench', member_addresses: addresses.slice(1) },
        auth(0),
      );
      for (const session of sessions) {
        sockets.push(
          await new Promise((resolve, reject) => {
            const socket = new WebSocket(`ws://127.0.0.1:${service.httpPort}/ws`, [
              'bearer',
              session.access_token,
            ]);
            socket.once('message', () => resolve(socket));
            socket.once('error', reject);
          }),
        );
      }
      const ciphertext = randomBytes(256).toString('base64');
      const direct = (label) => (index) =>
        postJson(
          `${base}/api/v1/send`,
          {
            client_message_id: `${label}-${index}`,
            recipient_address: addresses[(index + 1) % members],
            ciphertext,
          },
          auth(index % members),
        );
      const toGroup = (label) => (index) =>
        postJson(
          `${base}/api/v1/send`,
          { client_message_id: `${label}-${index}`, group_id: group.group.id, ciphertext },
          auth(index % members),
        );
      await sendAndDeliver({ sockets, send: direct('warm'), count: 50, deliveries: 100 });
      await sendAndDeliver({
        sockets,
        send: toGroup('warm-group'),
        count: 10,
        deliveries: 10 * members,
      });
      const measure = async (title, send, deliveries) => {
        const before = await redis.stats();
        const startedAt = performance.now();
        await sendAndDeliver({ sockets, send, count: sends, deliveries });
        const measured = difference(before, await redis.stats());
        const idleFrom = await redis.stats();
        await sleep(performance.now() - startedAt);
        const { rows, summary } = perSend(
          measured,
          difference(idleFrom, await redis.stats()),
          sends,
          deliveries,
        );
        printTable(title, rows);
        console.log(summary);
      };
      await measure(
        `Redis commands, ${sends} direct messages (2 deliveries each), all users connected`,
        direct('direct'),
        2 * sends,
      );
      await measure(
        `Redis commands, ${sends} messages to a group of ${members} (${members} deliveries each)`,
        toGroup('group'),
        members * sends,
      );
    } finally {
      for (const socket of sockets) socket.terminate();
      await service.stop();
    }
  } finally {
    await redis.stop();
  }
}
