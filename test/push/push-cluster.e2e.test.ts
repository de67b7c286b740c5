/**
 * Push as deployed: two api processes and a ws pod sharing one real Redis (each api process on
 * its own embedded store, so every user signs in and subscribes on both, as they would see one
 * shared database), against a real local push service. Every push is sent once whichever api
 * process takes the wake-up and the delivery from the shared queue, and a call offered on the
 * ws pod, which has no store, wakes the callee through an api process.
 */
import { generateKeyPairSync } from 'node:crypto';
import webPush from 'web-push';
import { startChildService } from '../support/child-service.js';
import type { ChildService } from '../support/child-service.js';
import { LocalPushService } from '../support/local-push-service.js';
import type { PushDevice } from '../support/local-push-service.js';
import { RealtimeClient } from '../support/realtime-client.js';
import { Api, expectOk, sleep } from '../support/session-api.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { TestUser, bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import {
  deleteKeys,
  uniqueTestPrefix,
  withRedis,
} from '../platform/shared-state/redis-for-tests.js';

let pushService: LocalPushService;
beforeAll(async () => {
  pushService = await LocalPushService.start();
});
afterAll(() => pushService.stop());

await withRedis((redisUrl) => {
  const prefix = uniqueTestPrefix('push');
  const vapid = webPush.generateVAPIDKeys();
  const shared = () => ({
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: prefix,
    JWT_SIGNING_KEY: signingKey,
    RATE_LIMITS_ENABLED: 'false',
    KEYS_DHT: 'off',
    PUSH_VAPID_PUBLIC_KEY: vapid.publicKey,
    PUSH_VAPID_PRIVATE_KEY: vapid.privateKey,
    PUSH_CA_FILE: pushService.caFile,
  });
  const signingKey = generateKeyPairSync('ed25519')
    .privateKey.export({ format: 'pem', type: 'pkcs8' })
    .toString();
  const api = { ROLE: 'api', ALLOW_EMBEDDED_STORE: 'true' };
  const { service: api1 } = serviceForThisFile(() => ({ ...shared(), ...api }), {
    start: startChildService,
  });
  const { service: api2 } = serviceForThisFile(() => ({ ...shared(), ...api }), {
    start: startChildService,
  });
  const { service: wsPod } = serviceForThisFile(() => ({ ...shared(), ROLE: 'ws' }), {
    start: startChildService,
  });
  afterAll(() => deleteKeys(redisUrl, prefix));

  /** The user signed in on both api processes, with the device subscribed on both. */
  const onBothPods = async (device?: PushDevice): Promise<[SignedIn, SignedIn]> => {
    const user = new TestUser();
    const sessions = [await signIn(api1.baseUrl, user), await signIn(api2.baseUrl, user)] as [
      SignedIn,
      SignedIn,
    ];
    if (device) {
      expectOk(
        await new Api(api1.baseUrl).post(
          '/api/v1/push/subscribe',
          device.subscription(),
          bearer(sessions[0]),
        ),
      );
      expectOk(
        await new Api(api2.baseUrl).post(
          '/api/v1/push/subscribe',
          device.subscription(),
          bearer(sessions[1]),
        ),
      );
    }
    return sessions;
  };
  const sentOn = async (pod: ChildService) => {
    const metrics = await (await fetch(`${pod.baseUrl}/metrics`)).text();
    return Number(/^push_sent_total\{kind="(?:message|call)"\} (\d+)/m.exec(metrics)?.[1] ?? 0);
  };

  it('sends each push once, whichever api process takes it from the shared queue', async () => {
    const [alice1, alice2] = await onBothPods();
    const devices = Array.from({ length: 12 }, () => pushService.device());
    const recipients = await Promise.all(devices.map((device) => onBothPods(device)));
    // Half the messages enter through each api process.
    await Promise.all(
      recipients.map(([on1, on2], n) => {
        const [from, to, pod] = n % 2 === 0 ? [alice1, on1, api1] : [alice2, on2, api2];
        return new Api(pod.baseUrl).post(
          '/api/v1/send',
          {
            client_message_id: `m-${n}`,
            recipient_address: to.user.address,
            ciphertext: Buffer.from(`text ${n}`).toString('base64'),
          },
          bearer(from),
        );
      }),
    );
    for (const device of devices) await pushService.waitForRequests(device, 1);
    await sleep(1500);
    for (const device of devices) {
      expect(pushService.requestsTo(device)).toHaveLength(1);
      expect(JSON.parse(pushService.requestsTo(device)[0]!.plaintext!)).toMatchObject({
        kind: 'message',
        seq: 1,
      });
    }
    expect((await sentOn(api1)) + (await sentOn(api2))).toBe(12);
    expect(pushService.protocolErrors).toEqual([]);
  });

  it('wakes the callee of a call offered on a ws pod, which has no store', async () => {
    const [caller] = await onBothPods();
    const device = pushService.device();
    const [callee] = await onBothPods(device);
    const socket = await RealtimeClient.connect(api1.baseUrl, wsPod.baseUrl, caller.accessToken);
    try {
      expect(
        await socket.request({
          type: 'call.offer',
          call_id: `call-${Date.now()}`,
          to: callee.user.address,
          sdp: 'v=0',
        }),
      ).toMatchObject({ type: 'ack' });
      const [push] = await pushService.waitForRequests(device, 1);
      expect(JSON.parse(push!.plaintext!)).toEqual({ kind: 'call' });
      expect(push!.headers.urgency).toBe('high');
    } finally {
      socket.close();
    }
  });
});
