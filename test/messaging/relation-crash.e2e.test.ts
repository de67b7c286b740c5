/**
 * kill -9 of the real service (a child process on the embedded store) while it edits and
 * deletes messages: every edit it acknowledged is there after the restart, with its content and
 * its count, and every deletion it acknowledged stays a tombstone without ciphertext (the
 * deleted content does not come back from the journal). Edits not acknowledged may or may not
 * have happened, but a message is never left half-edited: it holds either its old content with
 * its old count or the new one with the next.
 */
import { startChildService } from '../support/child-service.js';
import type { ChildService } from '../support/child-service.js';
import type { Json } from '../support/json.js';
import { Api, expectOk } from '../support/session-api.js';
import { signIn } from '../support/wallet.js';
import { RelationCalls, text } from './relations-support.js';
import type { Where } from './relations-support.js';

const MESSAGES = 120;
const IN_FLIGHT = 8;
/** Acknowledged changes before the kill. */
const ACKS_BEFORE_KILL = 60;

let service: ChildService;
afterAll(async () => {
  await service?.stop();
});

it('acknowledged edits and deletions survive kill -9; none is half applied', async () => {
  service = await startChildService({ RATE_LIMITS_ENABLED: 'false' });
  let api = new Api(service.baseUrl);
  const calls = new RelationCalls(() => api);
  const alice = await signIn(service.baseUrl);
  const bob = await signIn(service.baseUrl);
  const withBob: Where = { peer_address: bob.user.address };
  const ids: string[] = [];
  for (let i = 0; i < MESSAGES; i++)
    ids.push((await calls.sent(alice, withBob, `m${i}`)).id as string);

  const edited = new Set<string>();
  const deleted = new Set<string>();
  let next = 0;
  let acks = 0;
  const worker = async () => {
    while (next < ids.length && service.process.signalCode === null) {
      const index = next++;
      const id = ids[index]!;
      const reply = await (
        index % 4 === 3
          ? calls.deleteForEveryone(alice, withBob, id)
          : calls.edit(alice, withBob, id, `edited ${index}`)
      ).catch(() => null);
      if (reply?.status !== 200) continue;
      (index % 4 === 3 ? deleted : edited).add(id);
      if (++acks === ACKS_BEFORE_KILL) await service.kill();
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  expect(acks).toBeGreaterThanOrEqual(ACKS_BEFORE_KILL);

  await service.restart();
  api = new Api(service.baseUrl);
  const history = expectOk(
    await api.get(`/api/v1/messages?peer_address=${alice.user.address}&page_size=200`, {
      authorization: `Bearer ${bob.accessToken}`,
    }),
  ).messages as Json[];
  const byId = new Map(history.map((message) => [message.id as string, message]));
  for (const [index, id] of ids.entries()) {
    const message = byId.get(id)!;
    if (deleted.has(id)) {
      expect(message).toMatchObject({ ciphertext: '', deleted_by: 'sender' });
    } else if (edited.has(id)) {
      expect({ text: text(message.ciphertext), count: message.edit_count }).toEqual({
        text: `edited ${index}`,
        count: 1,
      });
    } else if (message.deleted_at === '') {
      // Not acknowledged: either untouched or wholly edited.
      expect([
        { text: `m${index}`, count: 0 },
        { text: `edited ${index}`, count: 1 },
      ]).toContainEqual({ text: text(message.ciphertext), count: message.edit_count });
    }
  }
  expect(edited.size + deleted.size).toBeGreaterThanOrEqual(ACKS_BEFORE_KILL);
}, 120_000);
