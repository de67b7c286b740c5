/**
 * The delivery rules of one connection, driven directly: a greeting with the position, replay
 * of exactly what was missed, duplicates skipped, a lost publish filled from the log, and an
 * explicit resync when the log cannot fill the gap or cannot be read.
 */
import { jest } from '@jest/globals';
import { ClientConnection } from '../../src/realtime/client-connection.js';
import type { FrameSink } from '../../src/realtime/client-connection.js';
import { eventJson } from '../../src/events/event-envelope.js';
import { UserEventStream } from '../../src/events/user-event-stream.js';
import type { StreamedEvent } from '../../src/events/user-event-stream.js';
import { MemorySharedState } from '../../src/platform/shared-state/memory-shared-state.js';
import { createLogger } from '../../src/platform/logging/logger.js';
import type { Json } from '../support/json.js';

const USER = '0x' + 'a'.repeat(40);

function setup(retainCount = 100) {
  const state = new MemorySharedState({ keyPrefix: 't:', logger: createLogger('silent') });
  const events = new UserEventStream(state, { retainCount, retentionMs: 60_000 });
  const sent: Json[] = [];
  const sink: FrameSink = {
    send: (frame) => (sent.push(JSON.parse(frame)), true),
    sendPaced: async (frame) => (sent.push(JSON.parse(frame)), true),
    dropSlowConsumer: () => sent.push({ type: 'dropped' }),
  };
  const connection = new ClientConnection(USER, sink, events, { delivered: () => undefined }, 60);
  /** Publishes a durable event and returns it as the channel would deliver it. */
  const publish = async (text: string): Promise<StreamedEvent> => {
    const seq = await events.publishDurable(USER, eventJson('message.new', { text }));
    const { stream } = await events.position(USER);
    const [frame] = (await events.frames(USER, seq, seq))!;
    return { seq, stream, publishedAt: Date.now(), frame: frame! };
  };
  const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
  const texts = () =>
    sent.filter((frame) => frame.type === 'message.new').map((frame) => frame.data.text);
  return { events, connection, sent, publish, settle, texts };
}

it('greets with the current position and skips events it already has', async () => {
  const { connection, sent, publish, texts } = setup();
  const first = await publish('one');
  await connection.start(undefined);
  expect(sent[0]).toMatchObject({
    type: 'hello',
    address: USER,
    stream: first.stream,
    seq: 1,
    resumed: false,
  });
  connection.deliver(first);
  const second = await publish('two');
  connection.deliver(second);
  connection.deliver(second);
  expect(texts()).toEqual(['two']);
});

it('fills a gap left by a lost publish from the log, in order, then goes on live', async () => {
  const { connection, publish, settle, texts } = setup();
  await connection.start(undefined);
  await publish('lost one');
  await publish('lost two');
  connection.deliver(await publish('three'));
  await settle();
  connection.deliver(await publish('four'));
  expect(texts()).toEqual(['lost one', 'lost two', 'three', 'four']);
});

it('replays exactly what a resuming client missed', async () => {
  const { connection, sent, publish, texts } = setup();
  const seen = await publish('seen');
  await publish('missed 1');
  await publish('missed 2');
  await connection.start({ stream: seen.stream, seq: seen.seq });
  expect(sent[0]).toMatchObject({ type: 'hello', resumed: true, seq: 3 });
  expect(texts()).toEqual(['missed 1', 'missed 2']);
  expect(sent.filter((frame) => frame.type === 'message.new').map((frame) => frame.seq)).toEqual([
    2, 3,
  ]);
});

it('asks for a resync when the gap is longer than what is kept', async () => {
  const { connection, sent, publish, texts } = setup(2);
  const seen = await publish('seen');
  for (const text of ['a', 'b', 'c']) await publish(text);
  await connection.start({ stream: seen.stream, seq: seen.seq });
  expect(sent.map((frame) => frame.type)).toEqual(['hello', 'resync_required']);
  expect(sent[1]).toMatchObject({ stream: seen.stream, seq: 4 });
  expect(texts()).toEqual([]);
});

it('asks for a resync when the stream was restarted under it', async () => {
  const { connection, sent, publish } = setup();
  const seen = await publish('seen');
  await connection.start(undefined);
  connection.deliver({ ...seen, stream: 'another-stream', seq: 7 });
  expect(sent[sent.length - 1]).toMatchObject({
    type: 'resync_required',
    stream: 'another-stream',
    seq: 7,
  });
});

it('ephemeral events go straight through, without numbers', async () => {
  const { connection, sent } = setup();
  await connection.start(undefined);
  connection.deliver({
    seq: 0,
    stream: '',
    publishedAt: Date.now(),
    frame: eventJson('typing', { state: 'typing' }),
  });
  expect(sent[1]).toMatchObject({ type: 'typing', data: { state: 'typing' } });
  expect(sent[1].seq).toBeUndefined();
});

it('a gap it cannot read (shared state away) is one resync, and the held event follows it', async () => {
  const { events, connection, sent, publish, settle, texts } = setup();
  await connection.start(undefined);
  await publish('lost while cut off');
  const after = await publish('after the loss');
  // Redis away: a read fails at once. From the fourth read on it never answers, so that a
  // connection reading again and again stops there instead of spinning forever.
  let reads = 0;
  jest
    .spyOn(events, 'checkReplay')
    .mockImplementation(() =>
      ++reads > 3 ? new Promise(() => undefined) : Promise.reject(new Error('Redis away')),
    );
  connection.deliver(after);
  await settle();
  expect(reads).toBe(1);
  expect(sent.filter((frame) => frame.type !== 'hello')).toEqual([
    { type: 'resync_required', stream: after.stream, seq: 1, reason: 'unavailable' },
    expect.objectContaining({ type: 'message.new', seq: 2 }),
  ]);
  connection.deliver(await publish('live again'));
  expect(texts()).toEqual(['after the loss', 'live again']);
});
