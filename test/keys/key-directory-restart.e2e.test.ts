/**
 * The single-process key directory, with the DHT on (a DHT of one node, the default) and off
 * (records in this process only): a published bundle is served, and still served after a
 * restart, since the directory keeps records in memory and the store writes them back at start.
 */
import { startTestService } from '../support/start-service.js';
import type { TestService } from '../support/start-service.js';
import { KeyOwner, clientVerifiesBundle } from '../support/key-bundles.js';
import { Api, expectOk } from '../support/session-api.js';
import { bearer, signIn } from '../support/wallet.js';

describe.each(['on', 'off'])('KEYS_DHT=%s', (mode) => {
  let service: TestService | undefined;
  afterAll(() => service?.stop());

  it('serves a published bundle, and again after a restart', async () => {
    service = await startTestService({ KEYS_DHT: mode });
    const owner = await signIn(service.baseUrl);
    const body = await new KeyOwner(owner.user).bundle({ prekeys: 2 });
    const api = new Api(service.baseUrl);
    expectOk(await api.post('/api/v1/keys', body, bearer(owner)));
    expect(
      expectOk(await api.get(`/api/v1/keys/${owner.user.address}`, bearer(owner))).keyBundle
        .oneTimePreKeys,
    ).toEqual([body.oneTimePreKeys[0]]);

    await service.stop({ keepData: true });
    service = await startTestService({ KEYS_DHT: mode }, { dataDir: service.dataDir });
    const again = new Api(service.baseUrl);
    // The record is written back from the store just after the start.
    let reply = await again.get(`/api/v1/keys/${owner.user.address}`, bearer(owner));
    for (let attempt = 0; reply.status !== 200 && attempt < 50; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      reply = await again.get(`/api/v1/keys/${owner.user.address}`, bearer(owner));
    }
    const served = expectOk(reply).keyBundle;
    expect(served.oneTimePreKeys).toEqual([body.oneTimePreKeys[1]]);
    expect(clientVerifiesBundle(served)).toBe(true);
  });
});
