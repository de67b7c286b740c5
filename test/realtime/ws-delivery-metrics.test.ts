import { Registry } from 'prom-client';
import { createRealtimeMetrics } from '../../src/realtime/realtime-metrics.js';
import { deliveryMetrics } from '../../src/realtime/ws-delivery-metrics.js';

const delivered = async (registry: Registry, kind: string) => {
  const text = await registry.metrics();
  const line = new RegExp(`^ws_events_delivered_total\\{kind="${kind}"\\} (\\d+)$`, 'm').exec(text);
  return line ? Number(line[1]) : undefined;
};

test('deliveries counted between two reads are in the second read, each once', async () => {
  const registry = new Registry();
  const { counter } = deliveryMetrics(createRealtimeMetrics(registry));
  expect(await delivered(registry, 'durable')).toBe(0);
  expect(await delivered(registry, 'replayed')).toBe(0);

  counter.delivered('durable', 1);
  counter.delivered('durable', 1);
  counter.delivered('replayed', 5);
  expect(await delivered(registry, 'durable')).toBe(2);
  expect(await delivered(registry, 'replayed')).toBe(5);
  // A read with nothing new changes nothing: what was added is not added again.
  expect(await delivered(registry, 'durable')).toBe(2);

  counter.delivered('durable', 1);
  counter.delivered('ephemeral', 1);
  expect(await delivered(registry, 'durable')).toBe(3);
  expect(await delivered(registry, 'ephemeral')).toBe(1);
  expect(await delivered(registry, 'replayed')).toBe(5);
});
