/**
 * One message's journey in one trace, across processes: the api process (REST gateway, RPC,
 * store, the publish and its Redis script) and both ws pods (the delivery from Redis and each
 * socket write), as separate child processes on a Redis of their own, exporting to an OTLP
 * receiver in this test. New traces are never sampled (ratio 0): only the send, which arrives
 * with a sampled W3C `traceparent`, is traced, which also proves the parent-based decision is
 * honoured and that nothing else produces spans. The push wake-up the send queues joins the
 * trace when a dispatcher takes it. Clients never see the trace context.
 */
import { randomBytes } from 'node:crypto';
import { startOtlpReceiver } from '../../support/otlp-receiver.js';
import type { OtlpReceiver, ReceivedSpan } from '../../support/otlp-receiver.js';
import { startPrivateDeployment } from '../../support/private-deployment.js';
import type { PrivateDeployment } from '../../support/private-deployment.js';
import { RealtimeClient } from '../../support/realtime-client.js';
import { expectOk } from '../../support/session-api.js';
import { bearer } from '../../support/wallet.js';

const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;
const CONSUMER = 5;

let receiver: OtlpReceiver;
let deployment: PrivateDeployment;
const clients: RealtimeClient[] = [];

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  deployment = await startPrivateDeployment('cluster', {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: '0',
    OTEL_BSP_SCHEDULE_DELAY: '100',
  });
}, 120_000);
afterAll(async () => {
  for (const client of clients) client.close();
  await deployment?.stop();
  await receiver?.close();
});

async function spansOf(traceId: string, until: (spans: ReceivedSpan[]) => boolean) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const spans = receiver.spans.filter((span) => span.traceId === traceId);
    if (until(spans) || Date.now() > deadline) return spans;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

it('shows the send, the store, the publish through Redis and each ws pod writing it to its socket', async () => {
  const [alice, bob] = [await deployment.signIn(), await deployment.signIn()];
  // Bob's device on one ws pod, Alice's own device (which hears her sends) on the other.
  for (const [user, pod] of [
    [bob, 0],
    [alice, 1],
  ] as const) {
    clients.push(
      await RealtimeClient.connect(deployment.apiUrl, deployment.wsUrls[pod]!, user.accessToken),
    );
  }
  const [bobsDevice, alicesDevice] = clients as [RealtimeClient, RealtimeClient];
  const traceId = randomBytes(16).toString('hex');
  const callerSpanId = randomBytes(8).toString('hex');

  const reply = await deployment.http.post(
    '/api/v1/send',
    {
      client_message_id: 'traced-1',
      recipient_address: bob.user.address,
      ciphertext: Buffer.from('hello').toString('base64'),
    },
    { ...bearer(alice), traceparent: `00-${traceId}-${callerSpanId}-01` },
  );
  const messageId = expectOk(reply).chat_message.id as string;
  // W3C trace context out: the response names the gateway's span in the caller's trace.
  expect(reply.headers.get('traceparent')).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
  for (const device of [bobsDevice, alicesDevice]) {
    const frame = await device.next('message.new', (f) => f.data.message.id === messageId);
    expect(Object.keys(frame)).not.toContain('traceparent');
  }

  const writes = (spans: ReceivedSpan[]) => spans.filter((s) => s.name === 'ws socket write');
  const spans = await spansOf(
    traceId,
    (found) => writes(found).length >= 2 && found.some((span) => span.name === 'push wake'),
  );
  const byId = new Map(spans.map((span) => [span.spanId, span]));
  const parentOf = (span: ReceivedSpan) => byId.get(span.parentSpanId);
  const one = (name: string) => {
    const found = spans.filter((span) => span.name === name);
    expect(found.map((span) => span.name)).toEqual([name]);
    return found[0]!;
  };

  const gateway = one('POST /api/v1/send');
  expect(gateway).toMatchObject({ kind: SERVER, parentSpanId: callerSpanId });
  expect(gateway.resource['service.name']).toBe('messaging-api');
  expect(gateway.attributes['http.response.status_code']).toBe(200);
  const rpc = one('service.v1.MessagesService/SendMessage');
  expect(parentOf(rpc)).toBe(gateway);
  // Store operations and Redis commands of the send, under its RPC.
  const underRpc = (span: ReceivedSpan): boolean =>
    span === rpc || (parentOf(span) !== undefined && underRpc(parentOf(span)!));
  const stores = spans.filter((span) => span.name.startsWith('store '));
  expect(stores.some((span) => span.attributes['db.collection.name'] === 'messages')).toBe(true);
  expect(stores.every((span) => span.kind === CLIENT && underRpc(span))).toBe(true);
  const publish = one('publish message.new');
  expect(publish.kind).toBe(PRODUCER);
  expect(underRpc(publish)).toBe(true);
  const appends = spans.filter(
    (span) => span.attributes['db.redis.script'] === 'user-event-append',
  );
  // One numbered append per recipient stream: Bob's and Alice's own.
  expect(appends).toHaveLength(2);
  expect(appends.every((span) => parentOf(span) === publish)).toBe(true);

  // Each ws pod: a delivery under the publish, and its socket write under the delivery.
  const deliveries = spans.filter((span) => span.name === 'ws deliver');
  expect(deliveries).toHaveLength(2);
  for (const delivery of deliveries) {
    expect(delivery).toMatchObject({ kind: CONSUMER, parentSpanId: publish.spanId });
    expect(delivery.resource['service.name']).toBe('messaging-ws');
  }
  expect(new Set(deliveries.map((d) => d.resource['process.pid'])).size).toBe(2);
  const socketWrites = writes(spans);
  expect(socketWrites).toHaveLength(2);
  expect(socketWrites.map((w) => parentOf(w)).sort()).toEqual([...deliveries].sort());

  // The push wake-up queued for Bob runs on an api pod's dispatcher, in the same trace.
  const wake = one('push wake');
  expect(wake.kind).toBe(CONSUMER);
  expect(underRpc(parentOf(wake)!)).toBe(true);

  // Sign-ins and ticket requests came without a sampled parent: nothing else was exported.
  expect(new Set(receiver.spans.map((span) => span.traceId))).toEqual(new Set([traceId]));
  // Log lines join the trace: the access line of the send names it.
  const access = deployment
    .logLines()
    .find((line) => line.msg === 'request' && line.route === '/api/v1/send');
  expect(access).toMatchObject({ trace_id: traceId, span_id: gateway.spanId });
}, 60_000);
