/**
 * The trace context in an event's envelope (event-trace.ts): appended as the last member only
 * when there is one, taken off whole, and never mistaken for something inside the event's data.
 */
import { eventJson } from '../../src/events/event-envelope.js';
import {
  splitTraceparent,
  withTraceparent,
  withoutTraceparent,
} from '../../src/events/event-trace.js';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

test('round trip: the frame a client gets is the event without its trace context', () => {
  const event = eventJson('message.new', { message: { id: 'm1', text: 'hi' } });
  const carried = withTraceparent(event, TRACEPARENT);
  expect(JSON.parse(carried)).toEqual({ ...JSON.parse(event), traceparent: TRACEPARENT });
  expect(splitTraceparent(carried)).toEqual({ frame: event, traceparent: TRACEPARENT });
  // As numbered by the replay script: `{"seq":…,"stream":…,` put in front.
  const numbered = `{"seq":7,"stream":"s1",${carried.slice(1)}`;
  expect(withoutTraceparent(numbered)).toBe(`{"seq":7,"stream":"s1",${event.slice(1)}`);
});

test('without a trace context nothing is added and nothing taken', () => {
  const event = eventJson('typing', { state: 'typing' });
  expect(withTraceparent(event, undefined)).toBe(event);
  expect(splitTraceparent(event)).toEqual({ frame: event, traceparent: undefined });
});

test("a traceparent inside the event's data is data, not the envelope's", () => {
  for (const data of [
    { traceparent: TRACEPARENT },
    { text: `,"traceparent":"${TRACEPARENT}"` },
    `x","traceparent":"${TRACEPARENT}`,
  ]) {
    const event = eventJson('message.new', data);
    expect(splitTraceparent(event)).toEqual({ frame: event, traceparent: undefined });
  }
});
