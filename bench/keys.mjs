// Key-bundle fetches per second: GET /api/v1/keys/{address} against the built service (`node
// dist/main.js`, LOG_LEVEL=warn, the embedded store, as `npm start` runs it). Each fetch is the
// whole path: the store's current record, the DHT read and the verification of the owner's
// signatures when the node's verified copy is not that record (one read per owner in flight),
// and the atomic take of one one-time prekey in the store. Two set-ups:
//   1. one api process, a DHT of one node (the single-process default);
//   2. three api processes peered on loopback, fetching on the one that published (its store
//      has the prekeys), so each DHT read also asks the two other nodes over TCP.
// Before the clock starts, N owners (BENCH_KEYS_OWNERS, default 60) sign in and publish a bundle
// with 100 one-time prekeys each, made and signed with node:crypto and ethers; the timed run is
// (N - 2) × 100 fetches (every one hands out a prekey), BENCH_KEYS_CONCURRENCY (default 32) in
// flight, then 100 fetches of one more owner one at a time (the p50 of the target). Every
// response must be 200 with exactly one prekey, never one seen before, or the run fails.
//
// Where the time goes, from the service's own histogram key_bundle_fetch_phase_seconds (scraped
// from /metrics before and after the run): mean per fetch of the store's current record, of the
// DHT read and the verification (made only when the node's verified copy is not the current
// record: the DHT reads column says how many), and of the store's prekey take.
import { createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import { Wallet, hexlify, randomBytes } from 'ethers';
import { freePort, printRatio, printTable, startService, timedRequests } from './support.mjs';

const SERVICE_NAME = 'Service';
const PREKEYS = 100;
const b64 = (bytes) => Buffer.from(bytes).toString('base64');
const raw = (publicKey) => Buffer.from(publicKey.export({ format: 'jwk' }).x, 'base64url');
const x25519 = () => b64(raw(generateKeyPairSync('x25519').publicKey));

/** A signed PublishKeyBundle body for `address` (the texts of keys.proto). */
async function bundleFor(wallet) {
  const address = wallet.address.toLowerCase();
  const ed = generateKeyPairSync('ed25519');
  const ed25519PublicKey = b64(raw(createPublicKey(ed.privateKey)));
  const timestamp = Date.now();
  const binding = [
    `${SERVICE_NAME} Key Binding`,
    '',
    'I confirm that this wallet owns the end-to-end encryption key below.',
    '',
    `Wallet: ${address}`,
    `Ed25519 Public Key: ${ed25519PublicKey}`,
    `Timestamp: ${timestamp}`,
  ].join('\n');
  const spk = x25519();
  const body = {
    ed25519PublicKey,
    identityKey: x25519(),
    registrationId: 1,
    signedPreKey: {
      keyId: 1,
      publicKey: spk,
      signature: b64(sign(null, Buffer.from(spk, 'base64'), ed.privateKey)),
      timestamp,
    },
    oneTimePreKeys: Array.from({ length: PREKEYS }, (_, i) => ({
      keyId: i + 1,
      publicKey: x25519(),
    })),
    walletBinding: { signature: await wallet.signMessage(binding), timestamp },
  };
  const statement = [
    `${SERVICE_NAME} Key Bundle`,
    `Wallet: ${address}`,
    `Identity Key: ${body.identityKey}`,
    `Registration Id: ${body.registrationId}`,
    `Signed PreKey Id: ${body.signedPreKey.keyId}`,
    `Signed PreKey: ${body.signedPreKey.publicKey}`,
    `Signed PreKey Timestamp: ${body.signedPreKey.timestamp}`,
    `Wallet Binding Timestamp: ${timestamp}`,
  ].join('\n');
  return { ...body, bundleSignature: b64(sign(null, Buffer.from(statement), ed.privateKey)) };
}

async function register(baseUrl, wallet, username) {
  const message = [
    `${SERVICE_NAME} Registration`,
    `Wallet: ${wallet.address}`,
    `Username: ${username}`,
    `Timestamp: ${Date.now()}`,
  ].join('\n');
  const response = await fetch(`${baseUrl}/api/v1/initialize`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      wallet_address: wallet.address,
      message,
      signature: await wallet.signMessage(message),
      username,
    }),
  });
  const body = await response.json();
  if (response.status !== 200)
    throw new Error(`sign-in: ${response.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

/** Owners with published bundles, and a viewer's token, on the service at `baseUrl`. */
async function publishOwners(baseUrl, owners) {
  const prefix = `k${Date.now().toString(36)}`;
  const viewer = await register(baseUrl, new Wallet(hexlify(randomBytes(32))), `${prefix}_viewer`);
  const addresses = [];
  for (let i = 0; i < owners; i++) {
    const wallet = new Wallet(hexlify(randomBytes(32)));
    const token = await register(baseUrl, wallet, `${prefix}_${i}`);
    const response = await fetch(`${baseUrl}/api/v1/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(await bundleFor(wallet)),
    });
    if (response.status !== 200)
      throw new Error(`publish: ${response.status} ${await response.text()}`);
    addresses.push(wallet.address.toLowerCase());
  }
  return { viewer, addresses };
}

/** Sum and count per phase of the fetch histogram, from /metrics. */
async function phases(baseUrl) {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const read = (kind, phase) =>
    Number(
      new RegExp(`^key_bundle_fetch_phase_seconds_${kind}\\{phase="${phase}"\\} (\\S+)$`, 'm').exec(
        text,
      )?.[1] ?? 0,
    );
  return Object.fromEntries(
    ['current_record', 'directory_read', 'verification', 'prekey_take'].map((phase) => [
      phase,
      { sum: read('sum', phase), count: read('count', phase) },
    ]),
  );
}

/** Fetches each owner's bundle 100 times; every answer must carry one prekey never seen before. */
function fetchAll(baseUrl, viewer, addresses, concurrency) {
  const paths = addresses.flatMap((address) =>
    Array.from({ length: PREKEYS }, () => `/api/v1/keys/${address}`),
  );
  const seen = new Set();
  return timedRequests(paths.length, concurrency, async (index) => {
    const response = await fetch(`${baseUrl}${paths[index]}`, {
      headers: { authorization: `Bearer ${viewer}` },
    });
    const body = await response.json();
    const prekeys = body.keyBundle?.oneTimePreKeys;
    const id = `${body.keyBundle?.address}:${prekeys?.[0]?.keyId}`;
    if (response.status !== 200 || prekeys?.length !== 1 || seen.has(id))
      return `HTTP ${response.status} ${JSON.stringify(body).slice(0, 300)}`;
    seen.add(id);
    return undefined;
  });
}

async function measure(baseUrl, owners, concurrency) {
  const { viewer, addresses } = await publishOwners(baseUrl, owners);
  // Warm-up (untimed, prekeys of one owner): JIT and connections.
  await fetchAll(baseUrl, viewer, addresses.slice(0, 1), concurrency);
  const before = await phases(baseUrl);
  const result = await fetchAll(baseUrl, viewer, addresses.slice(2), concurrency);
  const after = await phases(baseUrl);
  const oneInFlight = await fetchAll(baseUrl, viewer, addresses.slice(1, 2), 1);
  const count = (phase) => after[phase].count - before[phase].count;
  const meanMs = (phase) =>
    count(phase) === 0
      ? 0
      : Number(((1000 * (after[phase].sum - before[phase].sum)) / count(phase)).toFixed(3));
  return {
    ...result,
    'p50 one in flight': oneInFlight.p50,
    'store current record (ms)': meanMs('current_record'),
    'DHT reads': count('directory_read'),
    'DHT read (ms)': meanMs('directory_read'),
    'verification (ms)': meanMs('verification'),
    'store prekey take (ms)': meanMs('prekey_take'),
  };
}

export async function benchKeys({
  owners = Number(process.env.BENCH_KEYS_OWNERS ?? 60),
  concurrency = Number(process.env.BENCH_KEYS_CONCURRENCY ?? 32),
} = {}) {
  const env = {
    LOG_LEVEL: 'warn',
    RATE_LIMITS_ENABLED: 'false',
    JWT_SIGNING_KEY: generateKeyPairSync('ed25519')
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString(),
  };
  const results = {};
  const singleRow = '1 api process (DHT of one node)';
  const clusterRow = '3 api processes (fetches on the publisher, DHT reads ask 2 peers)';

  const single = await startService(env);
  try {
    results[singleRow] = await measure(`http://127.0.0.1:${single.httpPort}`, owners, concurrency);
  } finally {
    await single.stop();
  }

  const ports = [await freePort(), await freePort(), await freePort()];
  const peersOf = (i) =>
    ports
      .filter((_, j) => j !== i)
      .map((port) => `127.0.0.1:${port}`)
      .join(',');
  const cluster = [];
  try {
    for (let i = 0; i < 3; i++)
      cluster.push(
        await startService({
          ...env,
          ROLE: 'api',
          ALLOW_EMBEDDED_STORE: 'true',
          KEYS_DHT_PORT: String(ports[i]),
          KEYS_DHT_PEERS: peersOf(i),
        }),
      );
    await new Promise((resolve) => setTimeout(resolve, 2000)); // the nodes find each other
    results[clusterRow] = await measure(
      `http://127.0.0.1:${cluster[0].httpPort}`,
      owners,
      concurrency,
    );
  } finally {
    await Promise.all(cluster.map((service) => service.stop()));
  }

  printTable(
    `GET /api/v1/keys/{address}: key-bundle fetches, each with a one-time prekey (${owners - 2} owners × ${PREKEYS}, ${concurrency} in flight, latencies in ms; phase means from key_bundle_fetch_phase_seconds)`,
    results,
  );
  printRatio(
    'key-bundle fetches/s, 3 api pods on a DHT / 1 pod',
    results[clusterRow].perSecond / results[singleRow].perSecond,
    '>=',
    0.8,
  );
  printRatio(
    'key-bundle fetch p50 at one in flight, 3 api pods (ms)',
    results[clusterRow]['p50 one in flight'],
    '<=',
    5,
  );
  return results;
}
