import net from 'node:net';

/**
 * Ports for tests come from below the kernel's ephemeral range (32768 and up on Linux): a port
 * taken from there with `listen(0)` and closed again could be handed to any outgoing connection
 * before the service under test binds it, and these tests open thousands. Each jest worker
 * (JEST_WORKER_ID) has a slice of its own, so workers running files side by side never draw the
 * same port; the start within the slice is random, so separate jest runs on one machine rarely
 * meet, and a port is only handed out after a bind on it succeeded.
 */
const FIRST_PORT = 10_000;
const SLICE = 2_000;
const SLICES = 11;
const worker = Number(process.env.JEST_WORKER_ID ?? 1);
const sliceStart = FIRST_PORT + ((worker - 1) % SLICES) * SLICE;
let offset = Math.floor(Math.random() * SLICE);

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port that was free a moment ago, and that no other jest worker will be given. */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < SLICE; tries++) {
    const port = sliceStart + (offset++ % SLICE);
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port in ${sliceStart}-${sliceStart + SLICE - 1}`);
}

/** Polls a readiness URL until it answers 200 (at most `timeoutMs`). */
export async function waitUntilReady(url: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (
      await fetch(url, { signal: AbortSignal.timeout(5_000) }).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not become ready within ${timeoutMs} ms`);
}
