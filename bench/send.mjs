// What a send costs the sender: `POST /api/v1/send` against the service (`node dist/main.js`,
// role `all`, embedded store, in-process shared state, LOG_LEVEL=warn, rate limits off), no
// WebSocket clients, so the figures are the send path itself: validation, idempotency, blocks,
// numbering and the durable write.
//
// Shapes (BENCH_SEND_MESSAGES each, default 1,000, after an untimed warm-up of 100):
// - one at a time, one conversation: the latency of one send, bounded by its durable writes
//   (one fdatasync each since sequence numbers are allocated in the message's write);
// - BENCH_SEND_CONCURRENCY in flight (default 32) into one conversation: a hot conversation,
//   where each process takes one send at a time (the sends wait for their turn);
// - the same number in flight, each into its own conversation: group commit shares the
//   fdatasyncs between conversations.
import { randomBytes } from 'node:crypto';
import { startWithUsers } from './sign-in.mjs';
import { percentile, postJson, printTable } from './support.mjs';

/** Sends `count` messages, `concurrency` in flight, `route(index)` choosing sender and recipient. */
async function measure({ send, count, concurrency, route, label }) {
  const latencies = [];
  let next = 0;
  const startedAt = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const index = next++;
        const sentAt = performance.now();
        await send(...route(index), `${label}-${index}`);
        latencies.push(performance.now() - sentAt);
      }
    }),
  );
  const seconds = (performance.now() - startedAt) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    'sends/s': Math.round(count / seconds),
    'p50 ms': Number(percentile(latencies, 50).toFixed(2)),
    'p99 ms': Number(percentile(latencies, 99).toFixed(2)),
  };
}

export async function benchSend({
  messages = Number(process.env.BENCH_SEND_MESSAGES ?? 1000),
  concurrency = Number(process.env.BENCH_SEND_CONCURRENCY ?? 32),
} = {}) {
  const { service, base, sessions, addresses } = await startWithUsers(
    concurrency * 2,
    `send${Date.now().toString(36)}`,
  );
  try {
    const ciphertext = randomBytes(256).toString('base64');
    const send = (from, to, id) =>
      postJson(
        `${base}/api/v1/send`,
        { client_message_id: id, recipient_address: addresses[to], ciphertext },
        { authorization: `Bearer ${sessions[from].access_token}` },
      );
    const oneConversation = (index) => [index % 2, (index + 1) % 2];
    /** Pair k is users 2k and 2k+1: `concurrency` conversations, one per sender in flight. */
    const ownConversation = (index) => [2 * (index % concurrency), 2 * (index % concurrency) + 1];
    await measure({ send, count: 100, concurrency, route: ownConversation, label: 'warm' });
    printTable(`POST /api/v1/send, ${messages} messages per row, no WebSocket clients`, {
      'one at a time, one conversation': await measure({
        send,
        count: messages,
        concurrency: 1,
        route: oneConversation,
        label: 'serial',
      }),
      [`${concurrency} in flight, one conversation`]: await measure({
        send,
        count: messages,
        concurrency,
        route: oneConversation,
        label: 'hot',
      }),
      [`${concurrency} in flight, ${concurrency} conversations`]: await measure({
        send,
        count: messages,
        concurrency,
        route: ownConversation,
        label: 'spread',
      }),
    });
  } finally {
    await service.stop();
  }
}
