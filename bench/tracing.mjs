// What OpenTelemetry tracing costs, in one run: the same service with tracing off (no
// OTEL_EXPORTER_OTLP_ENDPOINT), on but sampling nothing (OTEL_TRACES_SAMPLER_ARG=0: every
// request is sampled out) and on sampling everything (always_on), exporting to a local OTLP sink
// that discards what it gets. Two parts:
// - the REST gateway: GET /api/v1/version (gateway span, RPC span), the three services up
//   together and the load alternating between them, round after round (as bench/gateway.mjs);
// - the /ws fan-out (bench/realtime.mjs, service side only): BENCH_TRACING_CLIENTS sockets
//   (default 1000, 10 devices per user), each mode in turn, then off again to show the noise.
// `npm run build && node bench/tracing.mjs` runs it alone; `npm run bench` runs it last.
// BENCH_TRACING_BASELINE_DIR=<checkout with a build> adds the service as it was before tracing
// (e.g. `git worktree add ../base <commit> && (cd ../base && npx tsc -p tsconfig.build.json)`).
import { createServer } from 'node:http';
import { measureService } from './realtime.mjs';
import { load, printTable, processCpuSeconds, startService } from './support.mjs';

const ROUNDS = 3;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function startSink() {
  let spans = 0;
  const server = createServer((request, response) => {
    request.on('data', () => undefined);
    request.on('end', () => {
      spans += 1;
      response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    exports: () => spans,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

function modes(sinkUrl) {
  const on = {
    OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl,
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
  };
  const before = process.env.BENCH_TRACING_BASELINE_DIR;
  return {
    ...(before ? { 'before tracing': { BENCH_SERVICE_DIR: before } } : {}),
    'tracing off': { OTEL_EXPORTER_OTLP_ENDPOINT: '' },
    'on, sampled out (ratio 0)': { ...on, OTEL_TRACES_SAMPLER_ARG: '0' },
    'on, every request traced': { ...on, OTEL_TRACES_SAMPLER: 'always_on' },
  };
}

async function gateway(sinkUrl, duration) {
  const services = {};
  try {
    for (const [name, env] of Object.entries(modes(sinkUrl)))
      services[name] = await startService({
        LOG_LEVEL: 'warn',
        RATE_LIMITS_ENABLED: 'false',
        ...env,
      });
    const url = (service) => `http://127.0.0.1:${service.httpPort}/api/v1/version`;
    for (const service of Object.values(services)) await load(url(service), { duration: 2 });
    const rows = {};
    const perMode = Object.fromEntries(Object.keys(services).map((name) => [name, []]));
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [name, service] of Object.entries(services)) {
        const cpuBefore = processCpuSeconds(service.pid);
        const result = await load(url(service), { duration });
        const serverCpuUs = ((processCpuSeconds(service.pid) - cpuBefore) / result.total) * 1e6;
        const row = { ...result, serverCpuUs: Number(serverCpuUs.toFixed(1)) };
        rows[`round ${round}: ${name}`] = row;
        perMode[name].push(row);
      }
    }
    printTable(
      `Tracing: GET /api/v1/version through the REST gateway (50 connections, ${ROUNDS} alternating rounds of ${duration}s)`,
      rows,
    );
    for (const [name, values] of Object.entries(perMode))
      console.log(
        `${name}: median ${median(values.map((v) => v.requestsPerSecond)).toFixed(0)} req/s, ` +
          `${median(values.map((v) => v.serverCpuUs)).toFixed(1)} µs server CPU per request`,
      );
  } finally {
    await Promise.all(Object.values(services).map((service) => service.stop()));
  }
}

async function fanOut(sinkUrl, clients) {
  const shape = {
    clients,
    devices: 10,
    messages: 2000,
    concurrency: 32,
    rate: 500,
    rateSeconds: 5,
  };
  const rows = {};
  const runs = [
    ...Object.entries(modes(sinkUrl)),
    ['tracing off, again', modes(sinkUrl)['tracing off']],
  ];
  for (const [name, env] of runs) {
    const { fastest, fixed } = await measureService(shape, env);
    rows[`${name}, 32 in flight`] = fastest;
    rows[`${name}, 500 sends/s`] = fixed;
  }
  printTable(`Tracing: /ws fan-out, ${clients} sockets (each mode in turn)`, rows);
}

export async function benchTracing({ duration = Number(process.env.BENCH_DURATION ?? 10) } = {}) {
  const sink = await startSink();
  try {
    await gateway(sink.url, duration);
    await fanOut(sink.url, Number(process.env.BENCH_TRACING_CLIENTS ?? 1000));
    console.log(`OTLP export requests received by the sink: ${sink.exports()}`);
  } finally {
    await sink.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchTracing();
