// Wallet sign-ins per second: POST /api/v1/initialize against the built service (`node
// dist/main.js`, LOG_LEVEL=warn, the embedded store and in-process shared state, as `npm start`
// runs it), in two timed phases:
//   1. registrations: N fresh wallets, each posting a signed registration message (template 2);
//   2. sign-ins: the same N wallets, now returning users, each posting template 1.
// Every wallet and every signature is made with ethers BEFORE the clock starts: signing is the
// client's cost, not the server's. Requests go over fetch (undici, keep-alive) with a bounded
// number in flight. Every response must be 200 with the expected body, or the run fails.
//
// Rate limits: every request here comes from 127.0.0.1, and the per-IP sign-in bucket (5 per
// minute, burst 2) would refuse all but the first few, so the service runs with
// RATE_LIMITS_ENABLED=false: this measures sign-in itself.
//
// BENCH_SIGNIN_COUNT (default 3000) and BENCH_SIGNIN_CONCURRENCY (default 32) change the run.
// The signed timestamps must stay within 5 minutes of server time, so a run that takes longer
// than 4 minutes from signing to the last request is refused rather than reported.
import { Wallet, hexlify, randomBytes } from 'ethers';
import { postJson, printTable, startService, timedRequests } from './support.mjs';

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
  [`${SERVICE_NAME} Sign In`, '', `I confirm that I own this wallet and want to sign in to ${SERVICE_NAME}.`, '', `Wallet: ${address}`, `Timestamp: ${timestampMs}`].join('\n');

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
    users.push({
      username,
      registration: JSON.stringify({ wallet_address: wallet.address, message: registration, signature: await wallet.signMessage(registration) }),
      signIn: JSON.stringify({ wallet_address: wallet.address, message: signIn, signature: await wallet.signMessage(signIn) }),
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
        batch[index] = await postJson(`${base}/api/v1/initialize`, JSON.parse(wallets[index].registration));
      });
      sessions.push(...batch);
      addresses.push(...wallets.map((wallet) => JSON.parse(wallet.registration).wallet_address.toLowerCase()));
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
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: bodies[index] });
    const text = await response.text();
    let body;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (response.status !== 200 || body?.success !== true || body.is_new_user !== expectNewUser || !body.access_token || !body.refresh_token) {
      return `HTTP ${response.status} ${text.slice(0, 300)}`;
    }
    return undefined;
  });
}

export async function benchSignIn({ count = Number(process.env.BENCH_SIGNIN_COUNT ?? 3000), concurrency = Number(process.env.BENCH_SIGNIN_CONCURRENCY ?? 32) } = {}) {
  const prefix = `b${Date.now().toString(36)}`;
  const signingStartedAt = Date.now();
  const warmUp = await prepare(WARM_UP, `${prefix}w`);
  const users = await prepare(count, prefix);
  const signingSeconds = (Date.now() - signingStartedAt) / 1000;

  const service = await startService({ LOG_LEVEL: 'warn', RATE_LIMITS_ENABLED: 'false' });
  const url = `http://127.0.0.1:${service.httpPort}/api/v1/initialize`;
  let results;
  try {
    // Warm-up (untimed): JIT, the store's first writes, connection set-up.
    await run(url, warmUp.map((user) => user.registration), concurrency, true);
    const registrations = await run(url, users.map((user) => user.registration), concurrency, true);
    const signIns = await run(url, users.map((user) => user.signIn), concurrency, false);
    if (Date.now() - signingStartedAt > FRESHNESS_BUDGET_MS) {
      throw new Error('the run took longer than the 5-minute freshness window allows: lower BENCH_SIGNIN_COUNT');
    }
    results = { registrations, signIns };
  } finally {
    await service.stop();
  }

  printTable(`POST /api/v1/initialize: wallet sign-ins (${count} wallets, ${concurrency} in flight, latencies in ms)`, {
    'registration (template 2)': results.registrations,
    'sign-in (template 1, returning)': results.signIns,
  });
  console.log(`client-side signing of ${2 * (count + WARM_UP)} messages beforehand: ${signingSeconds.toFixed(1)} s (not measured)`);
  return results;
}
