// Wallet sign-ins per second: POST /api/v1/initialize against the built service (`node
// dist/main.js`, LOG_LEVEL=warn, the embedded store and in-process shared state, as `npm start`
// runs it), measured against the raw cost of the signature check it cannot avoid:
// for SIGNATURE_WORKERS = 0 (recovered on the event loop), 1 and 2 (worker threads), each time
//   0. the baseline: the raw @noble/curves secp256k1 public-key recovery rate on one core (this
//      process, one thread), over the sign-in signatures below, their hashes made beforehand;
//   then a fresh service, in two timed phases:
//   1. registrations: N fresh wallets, each posting a signed registration message (template 2);
//   2. sign-ins: the same N wallets, now returning users, each posting template 1.
// It prints sign-ins/s over the noble rate (issue 20's target: >= 0.8) and the 2-worker rate
// over the 1-worker rate (the scaling with cores), with the service's CPU time per sign-in
// (all its threads, from /proc) beside them.
// Every wallet and every signature is made with ethers BEFORE the clock starts: signing is the
// client's cost, not the server's. Requests go over fetch (undici, keep-alive) with a bounded
// number in flight. Every response must be 200 with the expected body, or the run fails.
//
// Rate limits: every request here comes from 127.0.0.1, and the per-IP sign-in bucket (5 per
// minute, burst 2) would refuse all but the first few, so the service runs with
// RATE_LIMITS_ENABLED=false: this measures sign-in itself.
//
// BENCH_SIGNIN_COUNT (default 3000), BENCH_SIGNIN_CONCURRENCY (default 32) and
// BENCH_SIGNIN_WORKERS (default "0,1,2") change the run. The signed timestamps must stay within
// 5 minutes of server time, so a run that takes longer than 4 minutes from signing to the last
// request is refused rather than reported.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { Signature, getBytes, hashMessage, hexlify, randomBytes, Wallet } from 'ethers';
import {
  postJson,
  printTable,
  processCpuSeconds,
  startService,
  timedRequests,
} from './support.mjs';

const SERVICE_NAME = 'Service'; // the SERVICE_NAME default, which the templates embed
const FRESHNESS_BUDGET_MS = 4 * 60_000;
const WARM_UP = 200;
/** Users signed and registered together by startWithUsers (well within the freshness window). */
const USER_BATCH = 1000;

const registrationMessage = (address, username, timestampMs) =>
  [
    `${SERVICE_NAME} Registration`,
    `I confirm that I own this wallet and want to register with ${SERVICE_NAME}.`,
    `Wallet: ${address}`,
    `Username: ${username}`,
    `Name: Bench ${username}`,
    `Timestamp: ${timestampMs}`,
  ].join('\n');

const signInMessage = (address, timestampMs) =>
  [
    `${SERVICE_NAME} Sign In`,
    '',
    `I confirm that I own this wallet and want to sign in to ${SERVICE_NAME}.`,
    '',
    `Wallet: ${address}`,
    `Timestamp: ${timestampMs}`,
  ].join('\n');

/** N wallets with a signed registration body and a signed sign-in body each, as JSON strings. */
export async function prepare(count, prefix) {
  const users = [];
  for (let i = 0; i < count; i++) {
    // A raw random key: Wallet.createRandom() derives from a mnemonic (PBKDF2), needlessly slow.
    const wallet = new Wallet(hexlify(randomBytes(32)));
    const username = `${prefix}_${i}`;
    const now = Date.now();
    const registration = registrationMessage(wallet.address, username, now);
    const signIn = signInMessage(wallet.address, now);
    const signInSignature = await wallet.signMessage(signIn);
    users.push({
      username,
      signInMessage: signIn,
      signInSignature,
      registration: JSON.stringify({
        wallet_address: wallet.address,
        message: registration,
        signature: await wallet.signMessage(registration),
      }),
      signIn: JSON.stringify({
        wallet_address: wallet.address,
        message: signIn,
        signature: signInSignature,
      }),
    });
  }
  return users;
}

/**
 * Starts the service as `npm start` runs it (LOG_LEVEL=warn, rate limits off) and registers
 * `count` fresh users: the service, its base URL, and each user's session and lowercase address.
 */
export async function startWithUsers(count, prefix, env = {}) {
  const service = await startService({ LOG_LEVEL: 'warn', RATE_LIMITS_ENABLED: 'false', ...env });
  const base = `http://127.0.0.1:${service.httpPort}`;
  try {
    const sessions = [];
    const addresses = [];
    // Signed timestamps must still be fresh when they are posted: sign and register a batch at a time.
    for (let first = 0; first < count; first += USER_BATCH) {
      const wallets = await prepare(Math.min(USER_BATCH, count - first), `${prefix}${first}`);
      const batch = new Array(wallets.length);
      await timedRequests(wallets.length, 32, async (index) => {
        batch[index] = await postJson(
          `${base}/api/v1/initialize`,
          JSON.parse(wallets[index].registration),
        );
      });
      sessions.push(...batch);
      addresses.push(
        ...wallets.map((wallet) => JSON.parse(wallet.registration).wallet_address.toLowerCase()),
      );
    }
    return { service, base, sessions, addresses };
  } catch (error) {
    await service.stop();
    throw error;
  }
}

/** Posts every body with at most `concurrency` in flight; fails on the first unexpected answer. */
function run(url, bodies, concurrency, expectNewUser) {
  return timedRequests(bodies.length, concurrency, async (index) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: bodies[index],
    });
    const text = await response.text();
    let body;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (
      response.status !== 200 ||
      body?.success !== true ||
      body.is_new_user !== expectNewUser ||
      !body.access_token ||
      !body.refresh_token
    ) {
      return `HTTP ${response.status} ${text.slice(0, 300)}`;
    }
    return undefined;
  });
}

/**
 * Public-key recoveries per second by @noble/curves on this thread, over the users' sign-in
 * signatures (hashes and signature objects made before the clock starts): the baseline.
 */
function nobleRecoveriesPerSecond(users) {
  const inputs = users.map(({ signInMessage, signInSignature }) => {
    const { r, s, yParity } = Signature.from(signInSignature);
    return {
      hash: getBytes(hashMessage(signInMessage)),
      signature: new secp256k1.Signature(BigInt(r), BigInt(s), yParity),
    };
  });
  for (const { hash, signature } of inputs.slice(0, 100)) signature.recoverPublicKey(hash); // warm-up: JIT, precomputed tables
  const startedAt = performance.now();
  for (const { hash, signature } of inputs) signature.recoverPublicKey(hash).toBytes(false);
  return Math.round(inputs.length / ((performance.now() - startedAt) / 1000));
}

/** One service with `workers` signature workers: warm-up, then the timed registrations and sign-ins. */
async function measureService(workers, warmUp, users, concurrency) {
  const service = await startService({
    LOG_LEVEL: 'warn',
    RATE_LIMITS_ENABLED: 'false',
    SIGNATURE_WORKERS: String(workers),
  });
  const url = `http://127.0.0.1:${service.httpPort}/api/v1/initialize`;
  try {
    // Warm-up (untimed): JIT, the store's first writes, connection set-up, the workers' start.
    await run(
      url,
      warmUp.map((user) => user.registration),
      concurrency,
      true,
    );
    const registrations = await run(
      url,
      users.map((user) => user.registration),
      concurrency,
      true,
    );
    const cpuBefore = processCpuSeconds(service.pid);
    const signIns = await run(
      url,
      users.map((user) => user.signIn),
      concurrency,
      false,
    );
    const cpuMsPerSignIn = ((processCpuSeconds(service.pid) - cpuBefore) * 1000) / users.length;
    return {
      registrations,
      signIns: { ...signIns, 'server CPU ms': Number(cpuMsPerSignIn.toFixed(2)) },
    };
  } finally {
    await service.stop();
  }
}

export async function benchSignIn({
  count = Number(process.env.BENCH_SIGNIN_COUNT ?? 3000),
  concurrency = Number(process.env.BENCH_SIGNIN_CONCURRENCY ?? 32),
  workerCounts = (process.env.BENCH_SIGNIN_WORKERS ?? '0,1,2').split(',').map(Number),
} = {}) {
  const prefix = `b${Date.now().toString(36)}`;
  let signingSeconds = 0;
  const runs = new Map();
  // Each service starts on an empty store, with wallets signed just before it (the signed
  // timestamps must be fresh for the whole run of that service); its baseline is measured just
  // before it too, so that both see the same load on a shared machine.
  for (const workers of workerCounts) {
    const signingStartedAt = Date.now();
    const warmUp = await prepare(WARM_UP, `${prefix}w${workers}`);
    const users = await prepare(count, `${prefix}${workers}`);
    signingSeconds += (Date.now() - signingStartedAt) / 1000;
    const nobleRate = nobleRecoveriesPerSecond(users);
    runs.set(workers, {
      nobleRate,
      ...(await measureService(workers, warmUp, users, concurrency)),
    });
    if (Date.now() - signingStartedAt > FRESHNESS_BUDGET_MS) {
      throw new Error(
        'the run took longer than the 5-minute freshness window allows: lower BENCH_SIGNIN_COUNT',
      );
    }
  }

  const rows = {};
  for (const [workers, { nobleRate, registrations, signIns }] of runs) {
    rows[`registration, SIGNATURE_WORKERS=${workers}`] = registrations;
    rows[`sign-in, SIGNATURE_WORKERS=${workers}`] = {
      ...signIns,
      'noble recovers/s': nobleRate,
      'x noble': Number((signIns.perSecond / nobleRate).toFixed(2)),
    };
  }
  printTable(
    `POST /api/v1/initialize: wallet sign-ins (${count} wallets, ${concurrency} in flight, latencies in ms)`,
    rows,
  );
  for (const [workers, { nobleRate, signIns }] of runs) {
    console.log(
      `SIGNATURE_WORKERS=${workers}: ${signIns.perSecond} sign-ins/s / ${nobleRate} raw @noble/curves recovers/s on one core = ${(signIns.perSecond / nobleRate).toFixed(2)} (target >= 0.8)`,
    );
  }
  if (runs.has(1) && runs.has(2)) {
    console.log(
      `sign-ins/s with 2 workers / with 1 worker: ${(runs.get(2).signIns.perSecond / runs.get(1).signIns.perSecond).toFixed(2)}`,
    );
  }
  console.log(
    `client-side signing of ${2 * (count + WARM_UP) * workerCounts.length} messages beforehand: ${signingSeconds.toFixed(1)} s (not measured)`,
  );
  return runs;
}
