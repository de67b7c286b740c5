/**
 * kill -9 of the real service (role `all`, embedded store) while it accepts messages in several
 * conversations at once, several rounds on the same DATA_DIR. Afterwards, for every
 * conversation, the stored sequence numbers must be exactly 1..N (a number exists only if its
 * message is durable, so no client waits for a message that will never come), and every message
 * the service acknowledged must be there with the number it was acknowledged with.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedDocumentStore } from '../../src/platform/store/embedded/embedded-store.js';
import { startChildService } from '../support/child-service.js';
import type { ChildService } from '../support/child-service.js';
import { silentLogger } from '../support/silent-logger.js';
import { signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';

const ROUNDS = 4;
/** Acknowledged sends per round before the kill. */
const ACKS_PER_ROUND = 250;
const IN_FLIGHT = 24;
const ENV = { RATE_LIMITS_ENABLED: 'false' };
/** Five users, six direct conversations, each written from both sides. */
const PAIRS: readonly (readonly [number, number])[] = [
  [0, 1],
  [1, 2],
  [2, 3],
  [3, 4],
  [4, 0],
  [0, 2],
];

interface Acknowledged {
  readonly conversationId: string;
  readonly sequence: number;
}

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'send-crash-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

const directId = (a: SignedIn, b: SignedIn) => {
  const [low, high] = [a.user.address.toLowerCase(), b.user.address.toLowerCase()].sort();
  return `dm:${low}:${high}`;
};

/**
 * Sends from IN_FLIGHT concurrent senders, round-robin over the conversations and directions,
 * records every 200, and SIGKILLs the service at the ACKS_PER_ROUND-th. Sends in flight at that
 * moment fail (connection reset) and were never acknowledged.
 */
async function sendUntilKilled(
  service: ChildService,
  users: SignedIn[],
  round: number,
  acknowledged: Map<string, Acknowledged>,
): Promise<void> {
  const exited = new Promise((resolve) => service.process.once('exit', resolve));
  let next = 0;
  let acks = 0;
  const sender = async () => {
    while (service.process.exitCode === null && service.process.signalCode === null) {
      const index = next++;
      const [a, b] = PAIRS[index % PAIRS.length]!;
      const [from, to] =
        Math.floor(index / PAIRS.length) % 2 === 0
          ? [users[a]!, users[b]!]
          : [users[b]!, users[a]!];
      const clientMessageId = `r${round}-${index}`;
      const reply = await fetch(`${service.baseUrl}/api/v1/send`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${from.accessToken}`,
        },
        body: JSON.stringify({
          client_message_id: clientMessageId,
          recipient_address: to.user.address,
          ciphertext: Buffer.from(clientMessageId).toString('base64'),
        }),
      }).catch(() => undefined);
      if (reply?.status !== 200) continue;
      const body = (await reply.json()) as { chat_message: { sequence: number } };
      acknowledged.set(clientMessageId, {
        conversationId: directId(from, to),
        sequence: body.chat_message.sequence,
      });
      if (++acks === ACKS_PER_ROUND) service.process.kill('SIGKILL');
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, sender));
  await exited;
}

test('after kill -9 rounds under load, every conversation is numbered 1..N and every acknowledged message is there', async () => {
  const acknowledged = new Map<string, Acknowledged>();
  let users: SignedIn[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const service = await startChildService(ENV, { dataDir });
    // Sessions and signing keys are durable, so the first round's tokens keep working.
    if (round === 1)
      users = await Promise.all(Array.from({ length: 5 }, () => signIn(service.baseUrl)));
    await sendUntilKilled(service, users, round, acknowledged);
  }

  const store = await EmbeddedDocumentStore.open({ dataDir, logger: silentLogger });
  try {
    const stored = await store
      .collection<{
        _id: string;
        conversationId: string;
        sequence: number;
        clientMessageId: string;
      }>('messages')
      .find({});
    const sequencesOf = new Map<string, number[]>();
    for (const message of stored)
      sequencesOf.set(message.conversationId, [
        ...(sequencesOf.get(message.conversationId) ?? []),
        message.sequence,
      ]);
    expect(sequencesOf.size).toBe(PAIRS.length);
    const holes = [...sequencesOf].flatMap(([conversationId, sequences]) => {
      const present = new Set(sequences);
      const missing = Array.from({ length: Math.max(...sequences) }, (_, i) => i + 1).filter(
        (n) => !present.has(n),
      );
      return missing.length > 0 || present.size !== sequences.length
        ? [{ conversationId, missing, duplicated: sequences.length - present.size }]
        : [];
    });
    expect(holes).toEqual([]);
    const byClientId = new Map(stored.map((message) => [message.clientMessageId, message]));
    const lost = [...acknowledged].filter(
      ([id, ack]) =>
        byClientId.get(id)?.sequence !== ack.sequence ||
        byClientId.get(id)?.conversationId !== ack.conversationId,
    );
    expect(lost).toEqual([]);
    console.log(
      `send crash test: ${ROUNDS} kill -9 rounds, ${acknowledged.size} acknowledged sends all present, ${stored.length} messages stored, no gap in ${sequencesOf.size} conversations`,
    );
  } finally {
    await store.close();
  }
}, 180_000);
