/**
 * What one send costs in durable writes on the embedded store: every fdatasync the service
 * makes is counted while messages are sent one at a time over real HTTP. The message, its
 * sequence number and the chat-list update share one group commit, so a send costs one.
 */
import { jest } from '@jest/globals';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { expectOk } from '../support/session-api.js';
import { bearer, signIn } from '../support/wallet.js';

const running = serviceForThisFile();

/** Counts FileHandle.datasync calls (the journal's fdatasync) made by this process. */
async function countDatasyncs(): Promise<{ readonly count: number; restore(): void }> {
  const probe = await open(join(tmpdir(), `datasync-probe-${process.pid}`), 'w');
  const prototype = Object.getPrototypeOf(probe) as { datasync(): Promise<void> };
  await probe.close();
  const spy = jest.spyOn(prototype, 'datasync');
  return {
    get count() {
      return spy.mock.calls.length;
    },
    restore: () => spy.mockRestore(),
  };
}

it('a send in an existing conversation costs one fdatasync', async () => {
  const [alice, bob] = await Promise.all([
    signIn(running.service.baseUrl),
    signIn(running.service.baseUrl),
  ]);
  const send = async (clientMessageId: string) =>
    expectOk(
      await running.api.post(
        '/api/v1/send',
        {
          client_message_id: clientMessageId,
          recipient_address: bob.user.address,
          ciphertext: 'AQID',
        },
        bearer(alice),
      ),
    );
  // The first send creates the conversation and records the session's activity.
  await send('warm-up');
  const datasyncs = await countDatasyncs();
  const SENDS = 20;
  try {
    for (let i = 0; i < SENDS; i++)
      expect((await send(`one-at-a-time-${i}`)).chat_message.sequence).toBe(i + 2);
    expect(datasyncs.count / SENDS).toBe(1);
  } finally {
    datasyncs.restore();
  }
});
