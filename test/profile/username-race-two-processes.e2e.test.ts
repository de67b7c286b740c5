/**
 * A username claimed at the same moment on two api processes sharing one MongoDB: one claim
 * wins, the other gets 409, and both processes then agree on the owner.
 *
 * Two processes cannot share the embedded store (one process owns a DATA_DIR), so this runs
 * only when MONGODB_URL is set, and says so when skipped. Without MongoDB the same guarantee
 * (the accounts' unique index deciding) is shown within one process by profile.e2e.test.ts
 * (8 concurrent claims over HTTP).
 */
import { generateKeyPairSync } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { startChildService } from '../support/child-service.js';
import type { ChildService } from '../support/child-service.js';
import { Api, expectFailure, expectOk } from '../support/session-api.js';
import { bearer, signIn } from '../support/wallet.js';

const mongodbUrl = process.env.MONGODB_URL;

if (!mongodbUrl) {
  console.warn('MONGODB_URL is not set: the username race is NOT tested across two api processes.');
  test.skip('one winner of a username claimed on two api processes (skipped: MONGODB_URL is not set)', () => {});
} else {
  const database = new URL(mongodbUrl);
  database.pathname = `/username_race_${process.pid}_${Date.now()}`;
  const pods: ChildService[] = [];

  beforeAll(async () => {
    const shared = {
      ROLE: 'api',
      MONGODB_URL: database.toString(),
      JWT_SIGNING_KEY: generateKeyPairSync('ed25519')
        .privateKey.export({ format: 'pem', type: 'pkcs8' })
        .toString(),
      RATE_LIMITS_ENABLED: 'false',
      KEYS_DHT: 'off',
    };
    pods.push(await startChildService(shared), await startChildService(shared));
  });
  afterAll(async () => {
    await Promise.all(pods.map((pod) => pod.stop()));
    const admin = new MongoClient(database.toString());
    await admin.db().dropDatabase();
    await admin.close();
  });

  it('of two claims of one name on two processes, one wins and the other gets 409, ten times over', async () => {
    const [first, second] = pods.map((pod) => new Api(pod.baseUrl)) as [Api, Api];
    for (let round = 0; round < 10; round += 1) {
      const [alice, bob] = await Promise.all([signIn(pods[0]!.baseUrl), signIn(pods[1]!.baseUrl)]);
      const name = `race_${process.pid % 10_000}_${round}_${Date.now() % 100_000}`;
      const replies = await Promise.all([
        first.post('/api/v1/update-username', { username: name }, bearer(alice)),
        second.post('/api/v1/update-username', { username: name }, bearer(bob)),
      ]);
      expect(replies.map((reply) => reply.status).sort()).toEqual([200, 409]);
      const loser = replies.find((reply) => reply.status === 409)!;
      expectFailure(loser, 409, 'CONFLICT');
      const winner = replies[0].status === 200 ? alice : bob;
      for (const api of [first, second]) {
        expect(
          expectOk(await api.get(`/api/v1/peer-info?address=${winner.user.address}`, bearer(alice)))
            .peer.profile.username,
        ).toBe(name);
      }
    }
  });
}
