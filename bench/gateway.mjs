// REST gateway throughput and latency for GET /api/v1/version against a bare node:http handler
// returning the same bytes, measured in the same run. Each server runs in its own process; both
// are up for the whole run and the load alternates between them, round after round, so that a
// burst of load from elsewhere on a shared machine hits one round of both rather than one side.
import {
  processCpuSeconds,
  load,
  printTable,
  startBaselineServer,
  startService,
} from './support.mjs';

const ROUNDS = 3;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * Load on one server, with the server process's CPU time per request: on a machine shared with
 * other jobs the throughput moves with their load, the CPU a request costs the server much less.
 */
async function measure(url, pid, duration) {
  const cpuBefore = processCpuSeconds(pid);
  const result = await load(url, { duration });
  const serverCpuUs = ((processCpuSeconds(pid) - cpuBefore) / result.total) * 1e6;
  return { ...result, serverCpuUs: Number(serverCpuUs.toFixed(1)) };
}

export async function benchGateway({ duration }) {
  const baseline = await startBaselineServer();
  // Access logs at info would measure stdout, not the gateway: run at warn, as documented. The
  // per-IP bucket (100 per minute) would refuse a load test from one address: limits are off.
  const service = await startService({ LOG_LEVEL: 'warn', RATE_LIMITS_ENABLED: 'false' }).catch(
    async (error) => {
      await baseline.stop();
      throw error;
    },
  );
  const rows = {};
  const ratios = [];
  const cpuRatios = [];
  try {
    const bareUrl = `http://127.0.0.1:${baseline.port}/api/v1/version`;
    const gatewayUrl = `http://127.0.0.1:${service.httpPort}/api/v1/version`;
    // Both warm up (JIT) before the first measured round.
    await load(bareUrl, { duration: 2 });
    await load(gatewayUrl, { duration: 2 });
    for (let round = 1; round <= ROUNDS; round++) {
      const bare = await measure(bareUrl, baseline.pid, duration);
      const gateway = await measure(gatewayUrl, service.pid, duration);
      const ratio = gateway.requestsPerSecond / bare.requestsPerSecond;
      ratios.push(ratio);
      cpuRatios.push(gateway.serverCpuUs / bare.serverCpuUs);
      rows[`round ${round}: bare node:http`] = bare;
      rows[`round ${round}: REST gateway`] = { ...gateway, ratio: Number(ratio.toFixed(2)) };
    }
  } finally {
    await service.stop();
    await baseline.stop();
  }

  printTable(
    `GET /api/v1/version: REST gateway vs bare node:http (50 connections, ${ROUNDS} alternating rounds of ${duration}s)`,
    rows,
  );
  console.log(
    `gateway / bare throughput ratio per round: ${ratios.map((r) => r.toFixed(2)).join(', ')}; median ${median(ratios).toFixed(2)} (target >= 1.00, stretch 1.50)`,
  );
  console.log(
    `gateway / bare server CPU per request per round: ${cpuRatios.map((r) => r.toFixed(2)).join(', ')}; median ${median(cpuRatios).toFixed(2)}`,
  );
}
