/**
 * The audit trail of wallet sign-in over real HTTP: failed sign-ins are recorded as
 * `sign_in_failed` with the reason in `detail`, registrations and sign-ins as `registration` /
 * `sign_in` with the account and session, each under the request's X-Request-Id; no entry holds
 * a signature or a token. The entries are read through the store after the service has shut
 * down (test/support/signin-store.ts): the running service keeps its DATA_DIR locked.
 */
import { AuditLog } from '../../../src/identity/audit/audit-log.js';
import type { AuditEntry } from '../../../src/identity/audit/audit-log.js';
import { TestUser } from '../../support/wallet.js';
import {
  expectFailure,
  expectSignedIn,
  freshMessage,
  postInitialize,
  signedBody,
} from '../../support/signin-http.js';
import type { HttpAnswer } from '../../support/signin-http.js';
import { stopAndReadStore } from '../../support/signin-store.js';
import { serviceForThisFile } from '../../support/service-for-tests.js';

const user = new TestUser();
/** Request id → what was sent and what came back. */
const sent = new Map<string, { signature: string; answer: HttpAnswer }>();
let entries: AuditEntry[];

async function post(requestId: string, body: { signature: string }) {
  const answer = await postInitialize(service.baseUrl, body, { 'x-request-id': requestId });
  sent.set(requestId, { signature: body.signature, answer });
  return answer;
}

const { service } = serviceForThisFile();
beforeAll(async () => {
  const registration = await signedBody(user, freshMessage('registration compact', user));
  expectFailure(
    await post(
      'audit-bad-template',
      await signedBody(user, `${freshMessage('registration compact', user)}\n`),
    ),
    401,
    'UNAUTHORIZED',
  );
  expectFailure(
    await post(
      'audit-expired',
      await signedBody(
        user,
        freshMessage('registration compact', user, { timestamp: Date.now() - 10 * 60_000 }),
      ),
    ),
    401,
    'EXPIRED_SIGNATURE',
  );
  expectFailure(
    await post('audit-malformed', {
      ...registration,
      signature: registration.signature.slice(0, 40),
    }),
    400,
    'INVALID_ARGUMENT',
  );
  expectSignedIn(await post('audit-registration', registration), user, true);
  expectFailure(await post('audit-replay', registration), 401, 'REPLAY_DETECTED');
  expectSignedIn(
    await post('audit-sign-in', await signedBody(user, freshMessage('sign-in', user))),
    user,
    false,
  );

  entries = await stopAndReadStore(service, (store) => new AuditLog(store).list({}, 1000));
});

const entryOf = (requestId: string) => {
  const found = entries.filter((entry) => entry.requestId === requestId);
  expect(found).toHaveLength(1);
  return found[0]!;
};

describe('the audit collection after failed and successful sign-ins', () => {
  it.each([
    ['audit-bad-template', 'UNAUTHORIZED'],
    ['audit-expired', 'EXPIRED_SIGNATURE'],
    ['audit-malformed', 'INVALID_ARGUMENT'],
  ])('%s: sign_in_failed with the reason %s in detail', (requestId, reason) => {
    expect(entryOf(requestId)).toMatchObject({
      event: 'sign_in_failed',
      detail: reason,
      requestId,
      ip: expect.stringMatching(/127\.0\.0\.1/),
    });
  });

  it('audit-replay: sign_in_failed with REPLAY_DETECTED and the wallet', () => {
    expect(entryOf('audit-replay')).toMatchObject({
      event: 'sign_in_failed',
      detail: 'REPLAY_DETECTED',
      address: user.address.toLowerCase(),
    });
  });

  it('audit-registration: registration with the account and the new session', () => {
    const { answer } = sent.get('audit-registration')!;
    expect(entryOf('audit-registration')).toMatchObject({
      event: 'registration',
      address: user.address.toLowerCase(),
      sessionId: answer.body.session_id,
    });
  });

  it('audit-sign-in: sign_in with the account and the new session', () => {
    const { answer } = sent.get('audit-sign-in')!;
    expect(answer.body.session_id).not.toBe(sent.get('audit-registration')!.answer.body.session_id);
    expect(entryOf('audit-sign-in')).toMatchObject({
      event: 'sign_in',
      address: user.address.toLowerCase(),
      sessionId: answer.body.session_id,
    });
  });

  it('holds exactly these six entries, timestamped, and neither signatures nor tokens', () => {
    expect(entries.map((entry) => entry.requestId).sort()).toEqual([...sent.keys()].sort());
    for (const entry of entries) expect(entry.at).toBeInstanceOf(Date);
    const stored = JSON.stringify(entries).toLowerCase();
    for (const { signature, answer } of sent.values()) {
      expect(stored).not.toContain(signature.slice(2, 66).toLowerCase());
      if (answer.status === 200) {
        for (const secret of [
          answer.body.access_token,
          answer.body.refresh_token,
          answer.body.csrf_token,
        ])
          expect(stored).not.toContain(String(secret).toLowerCase());
      }
    }
  });

  it('the log lines of the same requests carry the same request ids and statuses', () => {
    for (const [requestId, { answer }] of sent) {
      expect(
        service.logs
          .filter((line) => line.requestId === requestId && line.route === '/api/v1/initialize')
          .map((line) => line.status),
      ).toEqual([answer.status]);
    }
  });
});
