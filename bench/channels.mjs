// Channel fan-out: one post to a channel with BENCH_CHANNEL_SUBSCRIBERS subscribers (default
// 10,000) of whom BENCH_CHANNEL_CONNECTED (default 5,000) have a /ws connection open. The service
// runs as `npm start` would (`node dist/main.js`, role `all`, embedded store, in-process shared
// state, LOG_LEVEL=warn, rate limits off). A post is stored once and published once on the
// channel's topic, whatever the number of subscribers; the connected ones get it from the pod.
//
// BENCH_CHANNEL_POSTS posts (default 20) are published one after the other, each waited for
// until every connected subscriber has it. Figures:
// - time until the last connected subscriber has the post, p50 and max, from just before the
//   HTTP publish (the service persists the post durably first);
// - deliveries per second for one post: connected subscribers / that time (p50);
// - server CPU time per delivery: the service process's user + system CPU time over all timed
//   posts (from /proc, clock ticks), divided by the deliveries. It includes the publish request
//   itself (authentication, durable write), spread over the deliveries.
// The clients (all sockets, all parsing) run in this process on one core, the server in its own
// process on the other. `benchChannels(directMessages)` prints its deliveries per second as a
// ratio to the direct-message fan-out measured in the same run (bench/realtime.mjs).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import { connectAll } from './realtime.mjs';
import { startWithUsers } from './sign-in.mjs';
import { percentile, postJson, printTable, timedRequests } from './support.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** User + system CPU time of a process in milliseconds (Linux). */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

export async function benchChannels(directMessages) {
  const subscribers = Number(process.env.BENCH_CHANNEL_SUBSCRIBERS ?? 10_000);
  const connected = Number(process.env.BENCH_CHANNEL_CONNECTED ?? 5_000);
  const posts = Number(process.env.BENCH_CHANNEL_POSTS ?? 20);
  const { service, base, sessions } = await startWithUsers(subscribers + 1, `ch${Date.now().toString(36)}`);
  const auth = (index) => ({ authorization: `Bearer ${sessions[index].access_token}` });
  const owner = subscribers;
  try {
    const channelId = (await postJson(`${base}/api/v1/channels`, { name: 'bench', is_public: true }, auth(owner))).channel.id;
    const subscribing = await timedRequests(subscribers, 32, async (index) => {
      await postJson(`${base}/api/v1/channels/${channelId}/subscribe`, {}, auth(index));
    });
    const sockets = await connectAll(connected, (index) => new WebSocket(`ws://127.0.0.1:${service.httpPort}/ws`, ['bearer', sessions[index].access_token]));
    await sleep(2000);
    const waiting = new Map();
    for (const socket of sockets) {
      socket.on('message', (data) => {
        const text = data.toString();
        if (!text.includes('"channel.post"')) return;
        const frame = JSON.parse(text);
        const pending = waiting.get(frame.sequence);
        if (pending && --pending.left === 0) pending.done(performance.now());
      });
    }
    const publishOne = async (index) => {
      const startedAt = performance.now();
      let done;
      const arrived = new Promise((resolve) => (done = resolve));
      waiting.set(index, { left: connected, done });
      await postJson(`${base}/api/v1/channels/${channelId}/posts`, { client_message_id: `bench-${index}`, ciphertext: Buffer.alloc(256, index).toString('base64') }, auth(owner));
      const lastAt = await Promise.race([arrived, sleep(60_000).then(() => Promise.reject(new Error(`post ${index}: not delivered to every connected subscriber in 60 s`)))]);
      waiting.delete(index);
      return lastAt - startedAt;
    };
    const warmUp = 3;
    for (let i = 1; i <= warmUp; i++) await publishOne(i);
    const cpuBefore = cpuMs(service.pid);
    const times = [];
    for (let i = warmUp + 1; i <= warmUp + posts; i++) times.push(await publishOne(i));
    const cpuSpent = cpuMs(service.pid) - cpuBefore;
    for (const socket of sockets) socket.terminate();
    times.sort((a, b) => a - b);
    const p50 = percentile(times, 50);
    const result = {
      subscribers,
      connected,
      posts,
      'last delivery p50 ms': Number(p50.toFixed(1)),
      'last delivery max ms': Number(times[times.length - 1].toFixed(1)),
      'deliveries/s': Math.round(connected / (p50 / 1000)),
      'server CPU µs per delivery': Number(((cpuSpent * 1000) / (posts * connected)).toFixed(2)),
    };
    printTable(`channel post fan-out: ${subscribers} subscribers, ${connected} connected (subscribing took ${subscribing.seconds} s)`, { service: result });
    if (directMessages) console.log(`ratio channel / direct-message deliveries/s (same run): ${(result['deliveries/s'] / directMessages.service['deliveries/s']).toFixed(2)}`);
    return result;
  } finally {
    await service.stop();
  }
}
