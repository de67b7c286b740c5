/**
 * kill -9 of the real service (a child process on the embedded store, with in-process shared
 * state, so its "Redis" comes back empty) while it edits channel posts: every acknowledged edit
 * is in the history after the restart, and the channel's change numbers go on from the store's
 * log: the next change after the restart is numbered after every acknowledged one (no number
 * given twice, none reused after Redis lost them), and reaches a follower live.
 */
import { startChildService } from '../support/child-service.js';
import type { ChildService } from '../support/child-service.js';
import type { Json } from '../support/json.js';
import { RealtimeClient } from '../support/realtime-client.js';
import { Api, expectOk } from '../support/session-api.js';
import { bearer, signIn } from '../support/wallet.js';
import { RelationCalls, b64, newClientId, text } from '../messaging/relations-support.js';
import type { Where } from '../messaging/relations-support.js';

const POSTS = 40;
const IN_FLIGHT = 8;
/** Acknowledged edits before the kill. */
const ACKS_BEFORE_KILL = 20;

let service: ChildService;
afterAll(async () => {
  await service?.stop();
});

it('acknowledged post edits survive kill -9, and change numbers go on after them', async () => {
  service = await startChildService({ RATE_LIMITS_ENABLED: 'false', REDIS_URL: '' });
  let api = new Api(service.baseUrl);
  const calls = new RelationCalls(() => api);
  const owner = await signIn(service.baseUrl);
  const reader = await signIn(service.baseUrl);
  const channelId = expectOk(
    await api.post('/api/v1/channels', { name: 'Crash', is_public: true }, bearer(owner)),
  ).channel.id as string;
  const channel: Where = { channel_id: channelId };
  expectOk(await api.post(`/api/v1/channels/${channelId}/subscribe`, {}, bearer(reader)));
  const ids: string[] = [];
  for (let i = 0; i < POSTS; i++)
    ids.push(
      expectOk(
        await api.post(
          `/api/v1/channels/${channelId}/posts`,
          { client_message_id: newClientId(), ciphertext: b64(`p${i}`) },
          bearer(owner),
        ),
      ).chat_message.id as string,
    );

  const edited = new Set<number>();
  let next = 0;
  const worker = async () => {
    while (next < ids.length && service.process.signalCode === null) {
      const index = next++;
      const reply = await calls.edit(owner, channel, ids[index]!, `e${index}`).catch(() => null);
      if (reply?.status !== 200) continue;
      edited.add(index);
      if (edited.size === ACKS_BEFORE_KILL) await service.kill();
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  expect(edited.size).toBeGreaterThanOrEqual(ACKS_BEFORE_KILL);

  await service.restart();
  api = new Api(service.baseUrl);
  const posts = expectOk(await calls.history(reader, channel)).messages as Json[];
  const byId = new Map(posts.map((post) => [post.id as string, post]));
  for (const [index, id] of ids.entries()) {
    const post = byId.get(id)!;
    const now = { text: text(post.ciphertext), edits: post.edit_count };
    if (edited.has(index)) expect(now).toEqual({ text: `e${index}`, edits: 1 });
    // Not acknowledged: untouched or wholly edited, never half.
    else
      expect([
        { text: `p${index}`, edits: 0 },
        { text: `e${index}`, edits: 1 },
      ]).toContainEqual(now);
  }

  const follower = await RealtimeClient.connect(
    service.baseUrl,
    service.baseUrl,
    reader.accessToken,
  );
  try {
    const untouched = ids.findIndex((_, index) => byId.get(ids[index]!)!.edit_count === 0);
    const target = untouched === -1 ? ids[0]! : ids[untouched]!;
    expectOk(await calls.pin(owner, channel, target));
    const change = await follower.next(
      'channel.post_updated',
      (frame) => frame.data.change === 'pinned',
      10_000,
    );
    // Every acknowledged edit holds a number of the store's log below this one.
    expect(change.change_sequence as number).toBeGreaterThan(edited.size);
    expect(change.data.post.id).toBe(target);
  } finally {
    follower.close();
  }
}, 180_000);
