// Pushes per second drained from the push queue, against a local push service: an HTTPS server
// on loopback in this process (self-signed certificate from the openssl command, trusted by the
// service through PUSH_CA_FILE) that answers 201 to every push, or holds its answers while told
// to.
//
// - Baseline: `web-push` called directly, from a process of its own as the service is, for the
//   same number of pushes, each to a device of its own, BENCH_PUSH_CONCURRENCY in flight
//   (default 32), one VAPID signature reused as the service does: what the library, the
//   encryption and HTTPS on this machine allow, with no queue, no store and no service. The
//   better of a run before the service's round and one after it.
// - Service (`node dist/main.js`, role `all`, embedded store, in-process shared state,
//   LOG_LEVEL=warn, rate limits off): BENCH_PUSH_USERS users (default 500) subscribe
//   BENCH_PUSH_DEVICES devices each (default 4: a user's browsers). While the push service
//   holds its answers, user i sends a direct message to user i+1 (the same concurrency in
//   flight): every send queues a wake job, the dispatcher takes the first ones, queues their
//   deliveries and sends the first of those, which hang; everything else waits in the queue.
//   Once no new push has come for a second, the held pushes are answered and the clock starts:
//   the queue drains through its whole path (claim, wake expansion: subscriptions, sessions, /ws
//   check, coalescing key, durable delivery job; claim, encryption, HTTPS, removal). Pushes/s
//   counts the pushes that arrive after the release over the time to the last of them.
//   The sends alone are not what this measures: bench/send.mjs does.
import { execFile, execFileSync } from 'node:child_process';
import { createECDH, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import webPush from 'web-push';
import { startWithUsers } from './sign-in.mjs';
import { postJson, printRatio, printTable } from './support.mjs';

/** The local push service: answers 201, remembers when each device's push arrived. */
async function startPushReceiver() {
  const directory = mkdtempSync(path.join(tmpdir(), 'bench-push-'));
  const keyFile = path.join(directory, 'key.pem');
  const certFile = path.join(directory, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  const arrivals = new Map();
  /** While set, the answers held back. */
  let held;
  const server = createServer(
    { key: readFileSync(keyFile), cert: readFileSync(certFile) },
    (request, response) => {
      request.resume();
      request.on('end', () => {
        arrivals.set(request.url, performance.now());
        const answer = () => response.writeHead(201).end();
        if (held) held.push(answer);
        else answer();
      });
    },
  );
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `https://127.0.0.1:${server.address().port}`;
  return {
    origin,
    certFile,
    cert: readFileSync(certFile, 'utf8'),
    arrivals,
    hold() {
      held = [];
    },
    /** Answers the held pushes and those to come; resolves how many were held. */
    release() {
      const answers = held ?? [];
      held = undefined;
      for (const answer of answers) answer();
      return answers.length;
    },
    /** Resolves once no push has arrived for `quietMs`. */
    async settled(quietMs = 1000) {
      for (let seen = -1; seen !== arrivals.size;) {
        seen = arrivals.size;
        await new Promise((resolve) => setTimeout(resolve, quietMs));
      }
    },
    async waitFor(count, timeoutMs = 120_000) {
      const deadline = Date.now() + timeoutMs;
      while (arrivals.size < count) {
        if (Date.now() > deadline) throw new Error(`${arrivals.size} of ${count} pushes arrived`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

function newDevice(origin, name) {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return {
    endpoint: `${origin}/push/${name}`,
    keys: {
      p256dh: ecdh.getPublicKey().toString('base64url'),
      auth: randomBytes(16).toString('base64url'),
    },
  };
}

async function inFlight(count, concurrency, task) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

/**
 * The baseline's sender, run in a process of its own (as the service is) by `baseline`: `count`
 * pushes with `web-push`, each to a new device, `concurrency` in flight; prints pushes/s from the
 * first send to the last answer.
 */
export async function sendDirectly({ origin, caFile, count, concurrency }) {
  const vapid = webPush.generateVAPIDKeys();
  const { Authorization } = webPush.getVapidHeaders(
    origin,
    'mailto:bench@localhost',
    vapid.publicKey,
    vapid.privateKey,
    'aes128gcm',
  );
  const agent = new Agent({ keepAlive: true, ca: readFileSync(caFile, 'utf8') });
  const devices = Array.from({ length: count }, (_, n) => newDevice(origin, `direct-${n}`));
  const startedAt = performance.now();
  await inFlight(count, concurrency, (n) =>
    webPush.sendNotification(
      devices[n],
      '{"kind":"message","conversation_id":"dm:0x00:0x01","seq":1}',
      {
        headers: { Authorization },
        TTL: 86400,
        agent,
      },
    ),
  );
  agent.destroy();
  process.stdout.write(`${Math.round(count / ((performance.now() - startedAt) / 1000))}\n`);
}

async function baseline(receiver, count, concurrency) {
  receiver.arrivals.clear();
  const options = { origin: receiver.origin, caFile: receiver.certFile, count, concurrency };
  const script = `import { sendDirectly } from ${JSON.stringify(import.meta.url)};
await sendDirectly(${JSON.stringify(options)});`;
  // Asynchronously: the receiver answering it runs on this process's event loop.
  const { stdout } = await promisify(execFile)(process.execPath, [
    '--input-type=module',
    '-e',
    script,
  ]);
  if (receiver.arrivals.size < count) throw new Error("the baseline's pushes did not all arrive");
  return { 'pushes/s': Number(stdout.trim()) };
}

export async function benchPush({
  users = Number(process.env.BENCH_PUSH_USERS ?? 500),
  devices = Number(process.env.BENCH_PUSH_DEVICES ?? 4),
  concurrency = Number(process.env.BENCH_PUSH_CONCURRENCY ?? 32),
} = {}) {
  const count = users * devices;
  const receiver = await startPushReceiver();
  try {
    const before = await baseline(receiver, count, concurrency);
    const { service, base, sessions, addresses } = await startWithUsers(
      users,
      `push${Date.now().toString(36)}`,
      // Long enough that no held push is abandoned and retried while the sends queue the rest.
      { PUSH_CA_FILE: receiver.certFile, PUSH_TIMEOUT: '120s' },
    );
    try {
      await inFlight(users * devices, concurrency, (index) =>
        postJson(
          `${base}/api/v1/push/subscribe`,
          newDevice(receiver.origin, `u${index % users}d${Math.floor(index / users)}`),
          { authorization: `Bearer ${sessions[index % users].access_token}` },
        ),
      );
      receiver.arrivals.clear();
      receiver.hold();
      const ciphertext = randomBytes(256).toString('base64');
      await inFlight(users, concurrency, (n) =>
        postJson(
          `${base}/api/v1/send`,
          {
            client_message_id: `pushed-${n}`,
            recipient_address: addresses[(n + 1) % users],
            ciphertext,
          },
          { authorization: `Bearer ${sessions[n].access_token}` },
        ),
      );
      await receiver.settled();
      // What waits in the queue (the gauge is refreshed every second, and nothing moved for one).
      const metrics = await (await fetch(`${base}/metrics`)).text();
      const queued = Number(/^push_queue_depth (\d+)$/m.exec(metrics)?.[1]);
      const releasedAt = performance.now();
      const held = receiver.release();
      await receiver.waitFor(count).catch(async (error) => {
        const counters = (await (await fetch(`${base}/metrics`)).text())
          .split('\n')
          .filter((line) => line.startsWith('push_'));
        throw new Error(`${error.message}; the service counted:\n${counters.join('\n')}`);
      });
      const drained = count - held;
      const lastArrival = Math.max(...receiver.arrivals.values());
      const pushesPerSecond = Math.round(drained / ((lastArrival - releasedAt) / 1000));
      // The better of a baseline run before the service's round and one after it, the service idle.
      const after = await baseline(receiver, count, concurrency);
      const direct = before['pushes/s'] >= after['pushes/s'] ? before : after;
      printTable(
        `Push: ${count} pushes (${users} users × ${devices} devices), ${concurrency} in flight, local HTTPS push service`,
        {
          'web-push directly (baseline)': { ...direct, 'jobs queued': '', 'pushes held': '' },
          'service: drained from the queue': {
            'pushes/s': pushesPerSecond,
            'jobs queued': queued,
            'pushes held': held,
          },
        },
      );
      printRatio(
        'push through the queue / web-push directly',
        pushesPerSecond / direct['pushes/s'],
        '>=',
        0.8,
      );
    } finally {
      await service.stop();
    }
  } finally {
    await receiver.stop();
  }
}
