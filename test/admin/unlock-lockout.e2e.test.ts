/**
 * Lockouts and their admin unlock, end to end: repeated failed sign-ins lock the client IP
 * (429 LOCKED_OUT with Retry-After); DELETE /api/v1/admin/security/lockouts/{identifier} needs
 * the permission admin:view_audit_logs (403 without), granted with the operator command
 * `npm run admin -- grant`; after the unlock the client signs in again.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { builtModule } from '../support/built-service.js';
import { requestFrom } from '../support/http-from.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { startTestService } from '../support/start-service.js';
import { TestUser, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';

const ENV = { RATE_LIMITS_ENABLED: 'true' };
let admin: SignedIn;

/**
 * The admin account is made, the service stopped, the permission granted by the operator
 * command on its data; the service then starts again on the same data.
 */
async function adminGranted(): Promise<string> {
  const first = await startTestService(ENV, { keepData: true });
  admin = await signIn(first.baseUrl, new TestUser());
  await first.stop();
  const grant = await promisify(execFile)(
    process.execPath,
    [builtModule('cli/admin.js'), 'grant', admin.user.address, 'admin:view_audit_logs'],
    {
      env: { ...process.env, DATA_DIR: first.dataDir },
    },
  );
  expect(grant.stdout).toBe(
    `granted admin:view_audit_logs to ${admin.user.address.toLowerCase()}\n`,
  );
  return first.dataDir;
}

const { service } = serviceForThisFile(ENV, { prepareDataDir: adminGranted });

/** A correctly signed message with a trailing newline: a failed sign-in (401) for `user`. */
const badSignIn = async (user: TestUser, client: string) => {
  const body = await user.initializeBody('register');
  return requestFrom(`${service.baseUrl}/api/v1/initialize`, client, {
    method: 'POST',
    json: { ...body, message: `${body.message}\n` },
  });
};
const unlock = (identifier: string, headers: Record<string, string>, type = 'ip') =>
  fetch(`${service.baseUrl}/api/v1/admin/security/lockouts/${identifier}?type=${type}`, {
    method: 'DELETE',
    headers,
  });

it('locks a wallet after 5 failures from anywhere, refuses the unlock without the permission, and unlocks with it', async () => {
  const victim = new TestUser();
  // Each failure from its own address, so the per-IP buckets never interfere.
  for (let i = 0; i < 5; i++)
    expect((await badSignIn(victim, `127.0.44.${i + 10}`)).status).toBe(401);
  const locked = await requestFrom(`${service.baseUrl}/api/v1/initialize`, '127.0.44.20', {
    method: 'POST',
    json: await victim.initializeBody('register'),
  });
  expect(locked.status).toBe(429);
  expect(JSON.parse(locked.body)).toMatchObject({ success: false, code: 'LOCKED_OUT' });
  expect(Number(locked.headers['retry-after'])).toBeGreaterThan(50);

  const stranger = await signIn(service.baseUrl, new TestUser());
  const refused = await unlock(
    victim.address,
    { authorization: `Bearer ${stranger.accessToken}` },
    'user',
  );
  expect(refused.status).toBe(403);
  expect(await refused.json()).toMatchObject({ success: false, code: 'FORBIDDEN' });

  const done = await unlock(
    victim.address,
    { authorization: `Bearer ${admin.accessToken}` },
    'user',
  );
  expect(done.status).toBe(200);
  expect(await done.json()).toEqual({
    success: true,
    message: 'Lockout cleared',
    unlocked: true,
    identifier: victim.address.toLowerCase(),
    type: 'user',
  });
  const again = await unlock(
    victim.address,
    { authorization: `Bearer ${admin.accessToken}` },
    'user',
  );
  expect(await again.json()).toMatchObject({ unlocked: false });

  // The lock is gone: the wallet signs in.
  const after = await requestFrom(`${service.baseUrl}/api/v1/initialize`, '127.0.44.21', {
    method: 'POST',
    json: await victim.initializeBody('register'),
  });
  expect(after.status).toBe(200);
});

it('validates type and identifier', async () => {
  const auth = { authorization: `Bearer ${admin.accessToken}` };
  expect((await unlock('127.0.0.1', auth, 'device')).status).toBe(400);
  expect((await unlock('not-an-ip', auth, 'ip')).status).toBe(400);
  expect((await unlock('127.0.0.1', auth, 'user')).status).toBe(400);
  expect((await unlock(admin.user.address, auth)).status).toBe(400);
  expect((await unlock(admin.user.address, auth, 'user')).status).toBe(200);
});
