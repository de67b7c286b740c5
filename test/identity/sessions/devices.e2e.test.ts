/**
 * The caller's registered devices (DeviceService) over real HTTP: register, re-register by
 * device_id, list page by page, delete, and the refusals.
 */
import { expectFailure, expectOk, sleep } from '../../support/session-api.js';
import { serviceForThisFile } from '../../support/service-for-tests.js';
import type { HeaderMap } from '../../support/session-api.js';
import { bearer, signIn } from '../../support/wallet.js';

const running = serviceForThisFile();

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const register = (auth: HeaderMap, device: Record<string, unknown>) =>
  running.api.post('/api/v1/auth/register-device', device, auth);
const list = (auth: HeaderMap, query = '') => running.api.get(`/api/v1/auth/devices${query}`, auth);

/** A fresh account's Bearer headers. */
const newAccount = async () => bearer(await signIn(running.service.baseUrl));

it('registers a device and lists it', async () => {
  const auth = await newAccount();
  const body = expectOk(
    await register(auth, { name: "Alice's phone", platform: 'ios', push_token: 'apns-token-1' }),
  );
  expect(body.created).toBe(true);
  expect(body.device).toEqual({
    id: expect.stringMatching(/^\S+$/),
    name: "Alice's phone",
    platform: 'ios',
    push_token: 'apns-token-1',
    created_at: expect.stringMatching(ISO_MS),
    last_seen_at: expect.stringMatching(ISO_MS),
  });
  expect(expectOk(await list(auth))).toMatchObject({ devices: [body.device], next_cursor: '' });
});

it('re-registering with device_id updates that device instead of adding one', async () => {
  const auth = await newAccount();
  const first = expectOk(
    await register(auth, { name: 'Laptop', platform: 'desktop', push_token: 'token-a' }),
  ).device;
  const updated = expectOk(
    await register(auth, { device_id: first.id, name: 'Work laptop', platform: 'web' }),
  );
  expect(updated.created).toBe(false);
  expect(updated.device).toMatchObject({
    id: first.id,
    name: 'Work laptop',
    platform: 'web',
    created_at: first.created_at,
  });
  // An omitted push token removes the stored one.
  expect(updated.device).not.toHaveProperty('push_token');
  const listed = expectOk(await list(auth));
  expect(listed.devices).toEqual([updated.device]);
});

it('lists page by page with page_size 1 and next_cursor, every device once, most recently seen first', async () => {
  const auth = await newAccount();
  const ids: string[] = [];
  for (const name of ['one', 'two', 'three']) {
    ids.push(expectOk(await register(auth, { name, platform: 'android' })).device.id);
    await sleep(3); // distinct last_seen_at, so that the order is defined
  }
  expect(await listAllPages(auth, 1)).toEqual([...ids].reverse());
});

it('lists devices registered in the same millisecond each exactly once', async () => {
  const auth = await newAccount();
  const registered = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      register(auth, { name: `device-${i}`, platform: 'web' }).then(
        (reply) => expectOk(reply).device.id as string,
      ),
    ),
  );
  const listed = await listAllPages(auth, 1);
  expect(listed).toHaveLength(12);
  expect([...listed].sort()).toEqual([...registered].sort());
  expect(await listAllPages(auth, 5)).toEqual(listed);
});

/** Follows next_cursor from the first page to the last; the ids in listing order. */
async function listAllPages(auth: HeaderMap, pageSize: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor = '';
  for (let page = 0; page < 50; page++) {
    const body = expectOk(
      await list(
        auth,
        `?page_size=${pageSize}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      ),
    );
    ids.push(...body.devices.map((d: { id: string }) => d.id));
    cursor = body.next_cursor;
    if (cursor === '') return ids;
    expect(body.devices).toHaveLength(pageSize);
  }
  throw new Error('next_cursor never ran out');
}

it('refuses a cursor the service did not make', async () => {
  const auth = await newAccount();
  expectFailure(await list(auth, '?cursor=garbage'), 400, 'INVALID_ARGUMENT');
  expectFailure(await list(auth, '?page_size=201'), 400, 'INVALID_ARGUMENT');
});

it('deletes a device; deleting it again or an unknown id is 404', async () => {
  const auth = await newAccount();
  const keep = expectOk(await register(auth, { name: 'keep', platform: 'web' })).device;
  const drop = expectOk(await register(auth, { name: 'drop', platform: 'web' })).device;
  expectOk(await running.api.delete(`/api/v1/auth/devices/${drop.id}`, auth));
  expect(expectOk(await list(auth)).devices.map((d: { id: string }) => d.id)).toEqual([keep.id]);
  expectFailure(
    await running.api.delete(`/api/v1/auth/devices/${drop.id}`, auth),
    404,
    'NOT_FOUND',
  );
  expectFailure(
    await running.api.delete('/api/v1/auth/devices/no-such-device', auth),
    404,
    'NOT_FOUND',
  );
});

it("cannot see, update or delete another account's device", async () => {
  const owner = await newAccount();
  const stranger = await newAccount();
  const device = expectOk(await register(owner, { name: 'mine', platform: 'ios' })).device;
  expect(expectOk(await list(stranger)).devices).toEqual([]);
  expectFailure(
    await register(stranger, { device_id: device.id, name: 'hijacked', platform: 'ios' }),
    404,
    'NOT_FOUND',
  );
  expectFailure(
    await running.api.delete(`/api/v1/auth/devices/${device.id}`, stranger),
    404,
    'NOT_FOUND',
  );
  expect(expectOk(await list(owner)).devices).toEqual([device]);
});

it('answers 404 for re-registering an unknown device_id', async () => {
  const auth = await newAccount();
  expectFailure(
    await register(auth, { device_id: 'no-such-device', name: 'x', platform: 'ios' }),
    404,
    'NOT_FOUND',
  );
});

it('refuses an invalid platform or name with 400, registering nothing', async () => {
  const auth = await newAccount();
  expectFailure(
    await register(auth, { name: 'phone', platform: 'symbian' }),
    400,
    'INVALID_ARGUMENT',
  );
  expectFailure(await register(auth, { name: 'phone' }), 400, 'INVALID_ARGUMENT');
  expectFailure(await register(auth, { name: '', platform: 'ios' }), 400, 'INVALID_ARGUMENT');
  expectFailure(
    await register(auth, { name: 'x'.repeat(65), platform: 'ios' }),
    400,
    'INVALID_ARGUMENT',
  );
  expect(expectOk(await list(auth)).devices).toEqual([]);
});

it('moves a push token to the device that registers it last', async () => {
  const auth = await newAccount();
  const old = expectOk(
    await register(auth, { name: 'old', platform: 'android', push_token: 'fcm-shared' }),
  ).device;
  const fresh = expectOk(
    await register(auth, { name: 'new', platform: 'android', push_token: 'fcm-shared' }),
  ).device;
  const listed = expectOk(await list(auth)).devices as { id: string; push_token?: string }[];
  expect(listed.find((d) => d.id === fresh.id)?.push_token).toBe('fcm-shared');
  expect(listed.find((d) => d.id === old.id)).not.toHaveProperty('push_token');
});

describe('a push token registered by another account', () => {
  // A push token names an app install; when it shows up under another account the install has
  // changed hands, so the token moves and the former account's device stops receiving pushes.
  it("moves to the caller's new device; the former holder keeps its device without the token", async () => {
    const former = await newAccount();
    const caller = await newAccount();
    const held = expectOk(
      await register(former, {
        name: 'sold phone',
        platform: 'ios',
        push_token: 'apns-changed-hands',
      }),
    ).device;
    const body = expectOk(
      await register(caller, {
        name: 'bought phone',
        platform: 'ios',
        push_token: 'apns-changed-hands',
      }),
    );
    expect(body).toMatchObject({
      created: true,
      message: 'Device registered',
      device: { name: 'bought phone', push_token: 'apns-changed-hands' },
    });
    expect(expectOk(await list(caller)).devices).toEqual([body.device]);
    const { push_token: _moved, ...heldWithoutToken } = held;
    expect(expectOk(await list(former)).devices).toEqual([heldWithoutToken]);
  });

  it('moves to an existing device of the caller updated by device_id', async () => {
    const former = await newAccount();
    const caller = await newAccount();
    expectOk(
      await register(former, {
        name: 'holder',
        platform: 'android',
        push_token: 'fcm-changed-hands',
      }),
    );
    const mine = expectOk(await register(caller, { name: 'mine', platform: 'android' })).device;
    const body = expectOk(
      await register(caller, {
        device_id: mine.id,
        name: 'mine',
        platform: 'android',
        push_token: 'fcm-changed-hands',
      }),
    );
    expect(body).toMatchObject({
      created: false,
      device: { id: mine.id, push_token: 'fcm-changed-hands' },
    });
    expect(expectOk(await list(former)).devices[0]).not.toHaveProperty('push_token');
  });

  it('answers the same whether or not the token was held, so the reply reveals nothing', async () => {
    const former = await newAccount();
    const caller = await newAccount();
    expectOk(await register(former, { name: 'holder', platform: 'web', push_token: 'held-token' }));
    const held = expectOk(
      await register(caller, { name: 'a', platform: 'web', push_token: 'held-token' }),
    );
    const fresh = expectOk(
      await register(caller, { name: 'a', platform: 'web', push_token: 'never-seen-token' }),
    );
    expect(Object.keys(held).sort()).toEqual(Object.keys(fresh).sort());
    expect({ ...held, device: undefined }).toEqual({ ...fresh, device: undefined });
  });

  it('ends with exactly one holder when several accounts register it at once', async () => {
    const accounts = await Promise.all(Array.from({ length: 6 }, () => newAccount()));
    const replies = await Promise.all(
      accounts.map((auth, i) =>
        register(auth, { name: `racer-${i}`, platform: 'android', push_token: 'fcm-raced' }),
      ),
    );
    for (const reply of replies) expectOk(reply);
    const holders = (
      await Promise.all(accounts.map(async (auth) => expectOk(await list(auth)).devices))
    )
      .flat()
      .filter((d: { push_token?: string }) => d.push_token === 'fcm-raced');
    expect(holders).toHaveLength(1);
  });
});

it('requires authentication', async () => {
  expectFailure(await register({}, { name: 'x', platform: 'ios' }), 401, 'UNAUTHORIZED');
  expectFailure(await list({}), 401, 'UNAUTHORIZED');
});
