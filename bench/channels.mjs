// Channel fan-out: posts to a channel with N subscribers of whom half have a /ws connection open,
// for each N of the curve BENCH_CHANNEL_CURVE (comma-separated, default "1000,10000"; the full
// curve is "1000,10000,50000"), each on a fresh service. The service runs as `npm start` would
// (`node dist/main.js`, role `all`, embedded store, in-process shared state, LOG_LEVEL=warn, rate
// limits off). A post is stored once and published once on the
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
// The clients run in this process (bench/fan-out.mjs: a post is recognised by its number in the
// frame's bytes, never parsed), the server in its own; the client's CPU use is reported too.
// `benchChannels(directMessages)` prints each row's deliveries per second as a ratio to the
// direct-message fan-out measured in the same run (bench/realtime.mjs).
import { connectAll, numberAfter, openSocket } from './fan-out.mjs';
import { startWithUsers } from './sign-in.mjs';
import {
  processCpuSeconds,
  jsonPoster,
  percentile,
  printTable,
  raiseFileLimit,
  timedRequests,
} from './support.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function measureChannel(subscribers, connected, posts) {
  const { service, base, sessions } = await startWithUsers(
    subscribers + 1,
    `ch${Date.now().toString(36)}`,
  );
  const post = jsonPoster(base);
  const auth = (index) => ({ authorization: `Bearer ${sessions[index].access_token}` });
  const owner = subscribers;
  try {
    const channelId = JSON.parse(
      await post('/api/v1/channels', { name: 'bench', is_public: true }, auth(owner)),
    ).channel.id;
    const subscribing = await timedRequests(subscribers, 32, async (index) => {
      await post(`/api/v1/channels/${channelId}/subscribe`, {}, auth(index));
    });
    const sockets = await connectAll(connected, (index) =>
      openSocket(`ws://127.0.0.1:${service.httpPort}/ws`, ['bearer', sessions[index].access_token]),
    );
    await sleep(2000);
    const waiting = new Map();
    const marker = Buffer.from(`"type":"channel.post","channel_id":"${channelId}","sequence":`);
    for (const socket of sockets) {
      socket.on('message', (frame) => {
        const pending = waiting.get(numberAfter(frame, marker));
        if (pending && --pending.left === 0) pending.done(performance.now());
      });
    }
    const publishOne = async (index) => {
      const startedAt = performance.now();
      let done;
      const arrived = new Promise((resolve) => (done = resolve));
      waiting.set(index, { left: connected, done });
      await post(
        `/api/v1/channels/${channelId}/posts`,
        {
          client_message_id: `bench-${index}`,
          ciphertext: Buffer.alloc(256, index).toString('base64'),
        },
        auth(owner),
      );
      const lastAt = await Promise.race([
        arrived,
        sleep(60_000).then(() =>
          Promise.reject(
            new Error(`post ${index}: not delivered to every connected subscriber in 60 s`),
          ),
        ),
      ]);
      waiting.delete(index);
      return lastAt - startedAt;
    };
    const warmUp = 3;
    for (let i = 1; i <= warmUp; i++) await publishOne(i);
    const cpuBefore = processCpuSeconds(service.pid);
    const clientCpuBefore = process.cpuUsage();
    const startedAt = performance.now();
    const times = [];
    for (let i = warmUp + 1; i <= warmUp + posts; i++) times.push(await publishOne(i));
    const cpuSpent = processCpuSeconds(service.pid) - cpuBefore;
    const clientCpu = process.cpuUsage(clientCpuBefore);
    const seconds = (performance.now() - startedAt) / 1000;
    for (const socket of sockets) socket.terminate();
    times.sort((a, b) => a - b);
    const p50 = percentile(times, 50);
    return {
      subscribers,
      connected,
      posts,
      'subscribing s': subscribing.seconds,
      'last delivery p50 ms': Number(p50.toFixed(1)),
      'last delivery max ms': Number(times[times.length - 1].toFixed(1)),
      'deliveries/s': Math.round(connected / (p50 / 1000)),
      'server CPU µs per delivery': Number(((cpuSpent * 1e6) / (posts * connected)).toFixed(2)),
      'client CPU %': Math.round(((clientCpu.user + clientCpu.system) / 1e6 / seconds) * 100),
    };
  } finally {
    await service.stop();
  }
}

export async function benchChannels(directMessages) {
  const curve = (process.env.BENCH_CHANNEL_CURVE ?? '1000,10000').split(',').map(Number);
  const posts = Number(process.env.BENCH_CHANNEL_POSTS ?? 20);
  raiseFileLimit(process.pid);
  const rows = {};
  for (const subscribers of curve)
    rows[`${subscribers} subscribers`] = await measureChannel(
      subscribers,
      Math.floor(subscribers / 2),
      posts,
    );
  printTable(
    `channel post fan-out: ${posts} posts one after the other, half the subscribers connected`,
    rows,
  );
  if (directMessages) {
    for (const [name, row] of Object.entries(rows))
      console.log(
        `ratio channel (${name}) / direct-message deliveries/s (same run): ${(row['deliveries/s'] / directMessages.service['deliveries/s']).toFixed(2)}`,
      );
  }
  return rows;
}
