// Channel reaction counts: reads per second of a channel post that carries reactions from
// BENCH_REACTION_USERS distinct readers (default 10,000), each with one key among five emoji,
// all added through `POST /api/v1/messages/react` on a fresh service run as `npm start` would
// (`node dist/main.js`, role `all`, embedded store, in-process shared state, LOG_LEVEL=warn,
// rate limits off). The read is `GET /api/v1/messages?channel_id=…&page_size=1`, the post with
// its counts and the reader's own keys (the counts are stored on the post: one read of the
// post, one of the reader's record, one of the pins), under autocannon (50 connections,
// BENCH_DURATION seconds), next to the same read of a post without reactions in the same run.
import { startWithUsers } from './sign-in.mjs';
import { jsonPoster, load, printTable, timedRequests } from './support.mjs';

const KEYS = ['👍', '❤️', '😂', '🎉', '🔥'];

export async function benchReactions({
  users = Number(process.env.BENCH_REACTION_USERS ?? 10_000),
  duration = Number(process.env.BENCH_DURATION ?? 10),
} = {}) {
  const { service, base, sessions } = await startWithUsers(
    users + 1,
    `rx${Date.now().toString(36)}`,
  );
  const post = jsonPoster(base);
  const auth = (index) => ({ authorization: `Bearer ${sessions[index].access_token}` });
  const owner = users;
  try {
    const channelId = JSON.parse(
      await post('/api/v1/channels', { name: 'bench', is_public: true }, auth(owner)),
    ).channel.id;
    const publish = async (text) =>
      JSON.parse(
        await post(
          `/api/v1/channels/${channelId}/posts`,
          {
            client_message_id: `p${Date.now()}${text}`,
            ciphertext: Buffer.from(text).toString('base64'),
          },
          auth(owner),
        ),
      ).chat_message.id;
    const reacted = await publish('reacted');
    const reacting = await timedRequests(users, 32, async (index) => {
      await post(
        '/api/v1/messages/react',
        { channel_id: channelId, message_id: reacted, key: KEYS[index % KEYS.length] },
        auth(index),
      );
    });
    const page = `${base}/api/v1/messages?channel_id=${channelId}&page_size=1`;
    const counts = (
      await (await fetch(page, { headers: auth(0) })).json()
    ).messages[0].reaction_counts.reduce((sum, { count }) => sum + count, 0);
    if (counts !== users) throw new Error(`counts add up to ${counts}, not ${users}`);
    const withReactions = await load(page, { duration, headers: auth(0) });
    await publish('plain');
    const plain = await load(page, { duration, headers: auth(0) });
    printTable(`Channel post with ${users} reactions: reads (GET /api/v1/messages, page_size=1)`, [
      {
        post: `${users} reactions (${KEYS.length} keys)`,
        'reads/s': Math.round(withReactions.requestsPerSecond),
        'p50 ms': withReactions.p50,
        'p99 ms': withReactions.p99,
      },
      {
        post: 'no reactions',
        'reads/s': Math.round(plain.requestsPerSecond),
        'p50 ms': plain.p50,
        'p99 ms': plain.p99,
      },
    ]);
    console.log(
      `reactions added: ${reacting.perSecond}/s (p50 ${reacting.p50} ms, p99 ${reacting.p99} ms, 32 in flight)`,
    );
    return { withReactions, plain, reacting };
  } finally {
    await service.stop();
  }
}
