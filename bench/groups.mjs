// Group fan-out next to direct messages, on one service in one run: BENCH_GROUP_MEMBERS users
// (default 100), each with one connected device, all members of one group. First direct
// messages user i → i+1 (each delivered to the recipient and to the sender's device), then
// group messages from the members in turn (each delivered to every member's device, the
// sender's included), both over HTTP with BENCH_GROUP_CONCURRENCY sends in flight (default 16);
// BENCH_GROUP_MESSAGES group messages (default 300) and five times as many direct ones.
//
// Figures per kind: deliveries per second (socket deliveries over the time from the first send
// to the last delivery), send-to-receive latency p50/p99 over every delivery, and the server's
// CPU time (user + system, from /proc) per delivery. The client runs in this process, the
// service (`node dist/main.js`, role `all`, embedded store, in-process shared state,
// LOG_LEVEL=warn, rate limits off) in its own.
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { startWithUsers } from './sign-in.mjs';
import { percentile, postJson, printTable } from './support.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const CLOCK_TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a process has used (Linux /proc/<pid>/stat, fields 14 and 15). */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

/** Sends `count` messages (`send(index, clientMessageId, ciphertext)`) and waits for `count × fanOut` deliveries. */
async function measure({ sockets, pid, send, count, fanOut, concurrency, label }) {
  const sentAt = new Map();
  const latencies = [];
  const expected = count * fanOut;
  let lastDeliveryAt = 0;
  let allDelivered;
  const done = new Promise((resolve) => (allDelivered = resolve));
  for (const socket of sockets) {
    socket.removeAllListeners('message');
    socket.on('message', (data) => {
      const frame = JSON.parse(data.toString());
      if (frame.type !== 'message.new') return;
      const start = sentAt.get(frame.data.message.client_message_id);
      if (start === undefined) return;
      lastDeliveryAt = performance.now();
      latencies.push(lastDeliveryAt - start);
      if (latencies.length === expected) allDelivered();
    });
  }
  const ciphertext = randomBytes(256).toString('base64');
  const cpuBefore = cpuSeconds(pid);
  const startedAt = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const index = next++;
        const id = `${label}-${index}`;
        sentAt.set(id, performance.now());
        await send(index, id, ciphertext);
      }
    }),
  );
  await Promise.race([done, sleep(120_000).then(() => Promise.reject(new Error(`${label}: ${latencies.length} of ${expected} deliveries after 120 s`)))]);
  const cpu = cpuSeconds(pid) - cpuBefore;
  const seconds = (lastDeliveryAt - startedAt) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    messages: count,
    deliveries: latencies.length,
    'messages/s': Math.round(count / seconds),
    'deliveries/s': Math.round(latencies.length / seconds),
    'p50 ms': Number(percentile(latencies, 50).toFixed(1)),
    'p99 ms': Number(percentile(latencies, 99).toFixed(1)),
    'server CPU µs per delivery': Math.round((cpu / latencies.length) * 1e6),
  };
}

export async function benchGroups({
  members = Number(process.env.BENCH_GROUP_MEMBERS ?? 100),
  messages = Number(process.env.BENCH_GROUP_MESSAGES ?? 300),
  concurrency = Number(process.env.BENCH_GROUP_CONCURRENCY ?? 16),
} = {}) {
  const { service, base, sessions, addresses } = await startWithUsers(members, `grp${Date.now().toString(36)}`);
  try {
    const auth = (user) => ({ authorization: `Bearer ${sessions[user].access_token}` });
    const group = await postJson(`${base}/api/v1/groups/create`, { name: 'Bench', member_addresses: addresses.slice(1) }, auth(0));
    const sockets = await Promise.all(
      sessions.map(
        (session) =>
          new Promise((resolve, reject) => {
            const socket = new WebSocket(`ws://127.0.0.1:${service.httpPort}/ws`, ['bearer', session.access_token]);
            socket.once('message', () => resolve(socket));
            socket.once('error', reject);
          }),
      ),
    );
    await sleep(1000);
    const direct = (index, id, ciphertext) => {
      const from = index % members;
      return postJson(`${base}/api/v1/send`, { client_message_id: id, recipient_address: addresses[(from + 1) % members], ciphertext }, auth(from));
    };
    const toGroup = (index, id, ciphertext) => postJson(`${base}/api/v1/send`, { client_message_id: id, group_id: group.group.id, ciphertext }, auth(index % members));
    const common = { sockets, pid: service.pid, concurrency };
    await measure({ ...common, send: direct, count: 200, fanOut: 2, label: 'warm-direct' });
    await measure({ ...common, send: toGroup, count: 30, fanOut: members, label: 'warm-group' });
    const directRow = await measure({ ...common, send: direct, count: messages * 5, fanOut: 2, label: 'direct' });
    const groupRow = await measure({ ...common, send: toGroup, count: messages, fanOut: members, label: 'group' });
    for (const socket of sockets) socket.terminate();
    printTable(`group fan-out: ${members} members, each connected with one device, ${concurrency} sends in flight`, {
      'direct message (2 deliveries each)': directRow,
      [`group message (${members} deliveries each)`]: groupRow,
    });
    console.log(
      `ratio group / direct: deliveries/s ${(groupRow['deliveries/s'] / directRow['deliveries/s']).toFixed(2)}, p99 ${(groupRow['p99 ms'] / directRow['p99 ms']).toFixed(2)}, CPU per delivery ${(groupRow['server CPU µs per delivery'] / directRow['server CPU µs per delivery']).toFixed(2)}`,
    );
    return { direct: directRow, group: groupRow };
  } finally {
    await service.stop();
  }
}
