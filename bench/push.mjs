// Pushes per second through the push queue, against a local push service: an HTTPS server on
// loopback in this process (self-signed certificate from the openssl command, trusted by the
// service through PUSH_CA_FILE) that answers 201 to every push and records when it came.
//
// - Baseline: `web-push` called directly from this process, BENCH_PUSH_CONCURRENCY in flight
//   (default 32), with one VAPID signature reused as the service does: what the library, the
//   encryption and HTTPS on this machine allow, with no queue, no store and no service.
// - Service (`node dist/main.js`, role `all`, embedded store, in-process shared state,
//   LOG_LEVEL=warn, rate limits off): BENCH_PUSH_COUNT users (default 500) each subscribe one
//   device; user i sends a direct message to user i+1, the same concurrency in flight. Each send
//   queues a wake-up; the dispatcher expands it (subscriptions, sessions, /ws check, coalescing)
//   into a delivery and sends it. Pushes/s counts from the first send to the last push received;
//   latency is from a send's start to its recipient's push.
// - The same sends once before anyone subscribed: the send rate without push work, to show what
//   pushing costs the senders.
import { execFileSync } from 'node:child_process';
import { createECDH, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import webPush from 'web-push';
import { startWithUsers } from './sign-in.mjs';
import { percentile, postJson, printRatio, printTable } from './support.mjs';

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
  const server = createServer(
    { key: readFileSync(keyFile), cert: readFileSync(certFile) },
    (request, response) => {
      request.resume();
      request.on('end', () => {
        arrivals.set(request.url, performance.now());
        response.writeHead(201).end();
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

/** The queue depth gauge is refreshed about every second: only a reading taken after that says the round's jobs are done. */
async function queueDrained(base) {
  await new Promise((resolve) => setTimeout(resolve, 1500));
  for (;;) {
    const metrics = await (await fetch(`${base}/metrics`)).text();
    if (/^push_queue_depth 0$/m.test(metrics)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function inFlight(count, concurrency, task) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

async function baseline(receiver, count, concurrency) {
  const vapid = webPush.generateVAPIDKeys();
  const { Authorization } = webPush.getVapidHeaders(
    receiver.origin,
    'mailto:bench@localhost',
    vapid.publicKey,
    vapid.privateKey,
    'aes128gcm',
  );
  const agent = new Agent({ keepAlive: true, ca: receiver.cert });
  const devices = Array.from({ length: count }, (_, n) =>
    newDevice(receiver.origin, `direct-${n}`),
  );
  receiver.arrivals.clear();
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
  return { 'pushes/s': Math.round(count / ((performance.now() - startedAt) / 1000)) };
}

export async function benchPush({
  count = Number(process.env.BENCH_PUSH_COUNT ?? 500),
  concurrency = Number(process.env.BENCH_PUSH_CONCURRENCY ?? 32),
} = {}) {
  const receiver = await startPushReceiver();
  try {
    const direct = await baseline(receiver, count, concurrency);
    const { service, base, sessions, addresses } = await startWithUsers(
      count,
      `push${Date.now().toString(36)}`,
      { PUSH_CA_FILE: receiver.certFile },
    );
    try {
      const ciphertext = randomBytes(256).toString('base64');
      const sendRound = async (label, sentAt) => {
        const startedAt = performance.now();
        await inFlight(count, concurrency, async (n) => {
          sentAt?.set(`/push/u${(n + 1) % count}`, performance.now());
          await postJson(
            `${base}/api/v1/send`,
            {
              client_message_id: `${label}-${n}`,
              recipient_address: addresses[(n + 1) % count],
              ciphertext,
            },
            { authorization: `Bearer ${sessions[n].access_token}` },
          );
        });
        return { startedAt, seconds: (performance.now() - startedAt) / 1000 };
      };
      const withoutPush = await sendRound('plain');
      // Its wake-ups (which find no subscription) are worked off before anyone subscribes.
      await queueDrained(base);
      for (const [n, session] of sessions.entries()) {
        await postJson(`${base}/api/v1/push/subscribe`, newDevice(receiver.origin, `u${n}`), {
          authorization: `Bearer ${session.access_token}`,
        });
      }
      receiver.arrivals.clear();
      const sentAt = new Map();
      const withPush = await sendRound('pushed', sentAt);
      await receiver.waitFor(count).catch(async (error) => {
        const counters = (await (await fetch(`${base}/metrics`)).text())
          .split('\n')
          .filter((line) => line.startsWith('push_'));
        throw new Error(`${error.message}; the service counted:\n${counters.join('\n')}`);
      });
      const lastArrival = Math.max(...receiver.arrivals.values());
      const pushesPerSecond = Math.round(count / ((lastArrival - withPush.startedAt) / 1000));
      const latencies = [...receiver.arrivals]
        .map(([url, at]) => at - sentAt.get(url))
        .sort((a, b) => a - b);
      printTable(
        `Push: ${count} pushes to ${count} devices, ${concurrency} in flight, local HTTPS push service`,
        {
          'web-push directly (baseline)': { ...direct, 'sends/s': '', 'p50 ms': '', 'p99 ms': '' },
          'service: send, queue, push': {
            'pushes/s': pushesPerSecond,
            'sends/s': Math.round(count / withPush.seconds),
            'p50 ms': Number(percentile(latencies, 50).toFixed(1)),
            'p99 ms': Number(percentile(latencies, 99).toFixed(1)),
          },
          'service: the same sends, no subscriptions': {
            'pushes/s': '',
            'sends/s': Math.round(count / withoutPush.seconds),
            'p50 ms': '',
            'p99 ms': '',
          },
        },
      );
      printRatio(
        'push through the queue / web-push directly',
        pushesPerSecond / direct['pushes/s'],
        '>=',
        0.8,
      );
      // Every push follows a send, so pushes/s cannot pass the sends/s: this says how close to it.
      printRatio(
        'pushes/s / the same sends without subscriptions (sends/s)',
        pushesPerSecond / (count / withoutPush.seconds),
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
