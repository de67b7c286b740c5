/**
 * The key directory as deployed: three api processes, each with its own DHT node (libp2p
 * Kademlia over TCP on loopback, the service's private protocol id), its own embedded store,
 * and the others named in KEYS_DHT_PEERS. A bundle published on the first is fetched on the
 * third; a replaced bundle is never served by any node once its replacement is acknowledged,
 * while an unchanged one is served from the node's verified copy without a DHT query, and
 * fetches that arrive together share one DHT read; records
 * forged by a node without the owner's keys, put straight into the DHT, are never served; and a node whose peers are gone and which holds no record itself answers 503,
 * until a peer comes back and it re-publishes from its store.
 */
import { multiaddr } from '@multiformats/multiaddr';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startDhtNode } from '../../src/platform/dht/kademlia-directory.js';
import { startChildService } from '../support/child-service.js';
import type { ChildService } from '../support/child-service.js';
import {
  bundleStatement,
  clientVerifiesBundle,
  expectNoBundle,
  KeyOwner,
} from '../support/key-bundles.js';
import { freePort } from '../support/ports.js';
import { Api, expectFailure, expectOk, sleep } from '../support/session-api.js';
import type { Reply } from '../support/session-api.js';
import { TestUser, bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';

const signingKey = generateKeyPairSync('ed25519')
  .privateKey.export({ format: 'pem', type: 'pkcs8' })
  .toString();
const dataDirs = [0, 1, 2].map(() => mkdtempSync(path.join(tmpdir(), 'svc-dht-')));
let ports: number[];
const nodes: (ChildService | undefined)[] = [];

/** Node i, on its own DHT port and DATA_DIR (kept across restarts), peered with the others. */
async function startNode(i: number): Promise<ChildService> {
  const peers = ports.filter((_, j) => j !== i).map((port) => `127.0.0.1:${port}`);
  const node = await startChildService({
    ROLE: 'api',
    ALLOW_EMBEDDED_STORE: 'true',
    DATA_DIR: dataDirs[i] as string,
    JWT_SIGNING_KEY: signingKey,
    RATE_LIMITS_ENABLED: 'false',
    KEYS_DHT_PORT: String(ports[i]),
    KEYS_DHT_PEERS: peers.join(','),
  });
  nodes[i] = node;
  return node;
}
const apiOf = (i: number) => new Api((nodes[i] as ChildService).baseUrl);

/** Polls until the reply has the status (peers find each other within a second or two). */
async function eventually(
  call: () => Promise<Reply>,
  status: number,
  timeoutMs = 15_000,
): Promise<Reply> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reply = await call();
    if (reply.status === status || Date.now() > deadline) return reply;
    await sleep(200);
  }
}

let alice: SignedIn;
let bobOnThird: SignedIn;
let aliceKeys: KeyOwner;

beforeAll(async () => {
  ports = await Promise.all([freePort(), freePort(), freePort()]);
  await Promise.all([0, 1, 2].map(startNode));
  // Each node has its own store, so each user signs in where they call.
  alice = await signIn(nodes[0]!.baseUrl);
  bobOnThird = await signIn(nodes[2]!.baseUrl);
  aliceKeys = new KeyOwner(alice.user);
});
afterAll(async () => {
  await Promise.all(nodes.map((node) => node?.stop()));
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

it('serves on the third node a bundle published on the first, verifiable by the client', async () => {
  const body = await aliceKeys.bundle({ prekeys: 3 });
  expectOk(await apiOf(0).post('/api/v1/keys', body, bearer(alice)));
  const reply = await eventually(
    () => apiOf(2).get(`/api/v1/keys/${alice.user.address}`, bearer(bobOnThird)),
    200,
  );
  const { keyBundle } = expectOk(reply);
  expect(keyBundle).toMatchObject({
    address: aliceKeys.address,
    identityKey: body.identityKey,
    signedPreKey: body.signedPreKey,
  });
  // One-time prekeys stay in the publishing node's store: the third node has none to give.
  expect(keyBundle.oneTimePreKeys).toEqual([]);
  expect(clientVerifiesBundle(keyBundle)).toBe(true);
});

/** DHT reads node i has made for fetches so far (its key_bundle_fetch_phase_seconds count). */
async function directoryReads(i: number): Promise<number> {
  const text = await (await fetch(`${nodes[i]!.baseUrl}/metrics`)).text();
  const count = /^key_bundle_fetch_phase_seconds_count\{phase="directory_read"\} (\d+)$/m.exec(
    text,
  );
  return Number(count?.[1] ?? 0);
}

it('serves a replaced bundle from no node once the replacement is acknowledged, and an unchanged one without a DHT read', async () => {
  const carol = await signIn(nodes[0]!.baseUrl);
  const viewers = [alice, await signIn(nodes[1]!.baseUrl), bobOnThird];
  const carolKeys = new KeyOwner(carol.user);
  const signedPreKeyServedBy = async (i: number) =>
    expectOk(await apiOf(i).get(`/api/v1/keys/${carolKeys.address}`, bearer(viewers[i]!))).keyBundle
      .signedPreKey;

  const together = (i: number) =>
    Promise.all(Array.from({ length: 8 }, () => signedPreKeyServedBy(i)));
  const first = await carolKeys.bundle({ prekeys: 10 });
  expectOk(await apiOf(0).post('/api/v1/keys', first, bearer(carol)));
  const readsBefore = await directoryReads(0);
  // Fetches that arrive together share one DHT read.
  expect(await together(0)).toEqual(Array(8).fill(first.signedPreKey));
  expect(await directoryReads(0)).toBe(readsBefore + 1);
  for (const i of [1, 2]) expect(await signedPreKeyServedBy(i)).toEqual(first.signedPreKey);
  // The publishing node's store holds the bundle: its verified copy is served, no DHT query.
  for (let n = 0; n < 3; n++) expect(await signedPreKeyServedBy(0)).toEqual(first.signedPreKey);
  expect(await directoryReads(0)).toBe(readsBefore + 1);

  const second = await carolKeys.bundle({
    prekeys: 10,
    signedPreKeyTimestamp: first.signedPreKey.timestamp + 1,
  });
  expectOk(await apiOf(0).post('/api/v1/keys', second, bearer(carol)));
  // From the acknowledgement on (for a second, on every node, together and one at a time): the
  // new bundle, never the old.
  const until = Date.now() + 1000;
  do {
    for (const i of [0, 1, 2]) {
      expect(await together(i)).toEqual(Array(8).fill(second.signedPreKey));
      expect(await signedPreKeyServedBy(i)).toEqual(second.signedPreKey);
    }
  } while (Date.now() < until);
  expect(await directoryReads(0)).toBe(readsBefore + 2);
});

describe("a node without the owner's keys", () => {
  let attacker: Awaited<ReturnType<typeof attackerNode>>;
  beforeAll(async () => {
    attacker = await attackerNode();
  });
  afterAll(() => attacker.stop());

  it("reaches the service's nodes: a genuine record it puts (with an extra member) is served, without the extra member", async () => {
    const dave = new KeyOwner(new TestUser());
    const { oneTimePreKeys, ...signed } = await dave.bundle();
    await attacker.put(dave.address, { address: dave.address, ...signed, injected: 'not served' });
    const served = expectOk(
      await eventually(() => apiOf(2).get(`/api/v1/keys/${dave.address}`, bearer(bobOnThird)), 200),
    ).keyBundle;
    expect(served).toEqual({ address: dave.address, ...signed, oneTimePreKeys: [] });
    expect(oneTimePreKeys.length).toBeGreaterThan(0);
  });

  it('cannot get a forged record served, for a user without a bundle or in place of a genuine one', async () => {
    const mallory = new KeyOwner(new TestUser());
    const victim = new TestUser().address.toLowerCase();
    // Mallory's own, correctly signed bundle relabelled as the victim's: the wallet binding does not recover the victim.
    const forgedNew = { ...(await mallory.bundle()), address: victim };
    // Alice's genuine record with Mallory's identity key, dated later so that it would win, re-signed by Mallory's Ed25519 key.
    const genuine = expectOk(await apiOf(0).get('/api/v1/keys', bearer(alice))).keyBundle;
    const swapped = {
      ...genuine,
      identityKey: mallory.identityKey,
      ed25519PublicKey: mallory.ed25519PublicKey,
      walletBinding: { ...genuine.walletBinding, timestamp: Date.now() + 60_000 },
    };
    const forgedOver = {
      ...swapped,
      oneTimePreKeys: undefined,
      bundleSignature: mallory.signEd25519(
        Buffer.from(bundleStatement(aliceKeys.address, swapped)),
      ),
    };

    await attacker.put(victim, forgedNew);
    await attacker.put(aliceKeys.address, forgedOver);
    // The attacker's node keeps its forgeries and answers queries with them; the service's nodes refuse them.
    expect(await attacker.holds(victim)).toBe(true);

    for (const i of [0, 2]) {
      const api = apiOf(i);
      const viewer = i === 0 ? alice : bobOnThird;
      expectNoBundle(await api.get(`/api/v1/keys/${victim}`, bearer(viewer)));
      const served = expectOk(
        await api.get(`/api/v1/keys/${alice.user.address}`, bearer(viewer)),
      ).keyBundle;
      expect(served.identityKey).toBe(genuine.identityKey);
      expect(clientVerifiesBundle(served)).toBe(true);
    }
  });
});

it('answers 503 on a node whose peers are stopped and which holds no record, and serves again once a peer is back', async () => {
  await Promise.all([nodes[1]!.stop(), nodes[2]!.stop()]);
  await nodes[0]!.stop();
  await startNode(0);
  // Its store has Alice's bundle, its DHT node has no record and no peer to ask.
  const unavailable = await apiOf(0).get(`/api/v1/keys/${alice.user.address}`, bearer(alice));
  expectFailure(unavailable, 503, 'UNAVAILABLE');
  expect(unavailable.body.error).toBe('Key bundle lookup unavailable: retry later');
  expectNoBundle(await apiOf(0).get(`/api/v1/keys/${new TestUser().address}`, bearer(alice)));

  await startNode(1);
  const served = await eventually(
    () => apiOf(0).get(`/api/v1/keys/${alice.user.address}`, bearer(alice)),
    200,
  );
  expect(expectOk(served).keyBundle.address).toBe(aliceKeys.address);
});

/** A DHT node speaking the service's protocol that stores anything (a node without the service's rules). */
async function attackerNode() {
  const namespace = 'e2ee-keys';
  const node = await startDhtNode('/ip4/127.0.0.1/tcp/0', namespace, {
    validate: () => {},
    select: () => 0,
  });
  await Promise.all(ports.map((port) => node.dial(multiaddr(`/ip4/127.0.0.1/tcp/${port}`))));
  await sleep(500);
  const keyOf = (address: string) => new TextEncoder().encode(`/${namespace}/${address}`);
  return {
    async put(address: string, record: object) {
      for await (const _event of node.services.dht.put(
        keyOf(address),
        new TextEncoder().encode(JSON.stringify(record)),
      )) {
        // Sent to the closest peers, which refuse it.
      }
    },
    async holds(address: string) {
      for await (const event of node.services.dht.get(keyOf(address)))
        if (event.name === 'VALUE') return true;
      return false;
    },
    stop: () => node.stop(),
  };
}
