/**
 * Refresh-token rotation over real HTTP (AuthService.RefreshToken): a refresh issues a whole new
 * pair, the presented token becomes used, presenting it again revokes the family and ends the
 * session, and of two concurrent exchanges of one token exactly one wins.
 */
import {
  expectAccessAccepted,
  expectAccessRefused,
  expectFailure,
  expectOk,
  expectSessionEnded,
} from '../../support/session-api.js';
import { serviceForThisFile } from '../../support/service-for-tests.js';
import { signIn } from '../../support/wallet.js';

const running = serviceForThisFile();

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('POST /api/v1/auth/refresh', () => {
  it('returns a new pair in every token member, for the same session', async () => {
    const session = await signIn(running.service.baseUrl);
    const before = Date.now();
    const body = expectOk(await running.api.refresh(session.refreshToken));
    expect(body).toEqual({
      success: true,
      message: expect.any(String),
      access_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      refresh_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      expires_at: expect.stringMatching(ISO_MS),
      token_type: 'Bearer',
      expires_in: 900,
      refresh_expires_at: expect.stringMatching(ISO_MS),
      session_id: session.sessionId,
    });
    expect(body.access_token).not.toBe(session.accessToken);
    expect(body.refresh_token).not.toBe(session.refreshToken);
    const accessExpiry = Date.parse(body.expires_at) - before;
    expect(accessExpiry).toBeGreaterThan(899_000);
    expect(accessExpiry).toBeLessThan(905_000);
    const refreshExpiry = Date.parse(body.refresh_expires_at) - before;
    expect(refreshExpiry).toBeGreaterThan(7 * 86_400_000 - 1_000);
    expect(refreshExpiry).toBeLessThan(7 * 86_400_000 + 5_000);
  });

  it('issues an access token that works, and a refresh token that rotates again', async () => {
    const session = await signIn(running.service.baseUrl);
    const first = expectOk(await running.api.refresh(session.refreshToken));
    const listed = expectOk(await running.api.listSessions(first.access_token));
    expect(listed.sessions.map((s: { id: string }) => s.id)).toEqual([session.sessionId]);
    const second = expectOk(await running.api.refresh(first.refresh_token));
    await expectAccessAccepted(running.api, second.access_token);
  });

  it('treats a reused refresh token as theft: 401 REPLAY_DETECTED, and the whole family and session end', async () => {
    const session = await signIn(running.service.baseUrl);
    const rotated = expectOk(await running.api.refresh(session.refreshToken));
    await expectAccessAccepted(running.api, rotated.access_token);

    expectFailure(await running.api.refresh(session.refreshToken), 401, 'REPLAY_DETECTED');

    await expectSessionEnded(running.api, {
      accessToken: rotated.access_token,
      refreshToken: rotated.refresh_token,
    });
    await expectAccessRefused(running.api, session.accessToken);
  });

  it('answers exactly one of two concurrent exchanges of one token with a pair; the other is reuse', async () => {
    for (let round = 0; round < 5; round++) {
      const session = await signIn(running.service.baseUrl);
      const replies = await Promise.all([
        running.api.refresh(session.refreshToken),
        running.api.refresh(session.refreshToken),
      ]);
      const winners = replies.filter((reply) => reply.status === 200);
      const losers = replies.filter((reply) => reply.status !== 200);
      expect(winners).toHaveLength(1);
      expect(losers).toHaveLength(1);
      expect(winners[0]!.body).toMatchObject({
        success: true,
        token_type: 'Bearer',
        session_id: session.sessionId,
      });
      expectFailure(losers[0]!, 401, 'REPLAY_DETECTED');
      // The loser presented a used token: that is reuse, so (spec) the family is revoked.
      await expectSessionEnded(running.api, {
        accessToken: winners[0]!.body.access_token,
        refreshToken: winners[0]!.body.refresh_token,
      });
    }
  });
});
