import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  SignJWT,
  UnsecuredJWT,
  base64url,
  decodeJwt,
  decodeProtectedHeader,
  exportPKCS8,
  generateKeyPair,
} from 'jose';
import type { JWTPayload } from 'jose';
import { loadKeyRing } from '../../../src/identity/tokens/key-ring.js';
import type { KeyRing } from '../../../src/identity/tokens/key-ring.js';
import {
  TokenService,
  TokenVerificationError,
} from '../../../src/identity/tokens/token-service.js';
import type {
  TokenFailure,
  TokenServiceOptions,
} from '../../../src/identity/tokens/token-service.js';

const ADDRESS = '0xAbCdEf0123456789aBcDeF0123456789AbCdEf01';
const SUB = ADDRESS.toLowerCase();

let dataDir: string;
let keyRing: KeyRing;
let tokens: TokenService;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'token-service-'));
  keyRing = await loadKeyRing({ dataDir });
  tokens = new TokenService({ keyRing });
});

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

const minutesAgo = (minutes: number) => () => new Date(Date.now() - minutes * 60_000);

/** Asserts the refusal, and the detail that shows it was refused for the intended reason. */
async function expectRefused(
  promise: Promise<unknown>,
  failure: TokenFailure,
  detail: RegExp,
): Promise<void> {
  const error: unknown = await promise.then(
    () => undefined,
    (rejection: unknown) => rejection,
  );
  if (!(error instanceof TokenVerificationError))
    throw new Error(`expected a TokenVerificationError, got ${String(error)}`);
  expect({ failure: error.failure, detail: error.detail }).toEqual({
    failure,
    detail: expect.stringMatching(detail),
  });
  // Whatever went wrong, the client-facing message says no more than the failure.
  expect(error.message).toBe(failure === 'expired' ? 'token expired' : 'invalid token');
}

/** Re-signs nothing: swaps the payload under the original header and signature. */
function withPayload(token: string, change: (payload: JWTPayload) => JWTPayload): string {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const changed = change(
    JSON.parse(new TextDecoder().decode(base64url.decode(payload))) as JWTPayload,
  );
  return [header, base64url.encode(JSON.stringify(changed)), signature].join('.');
}

describe('round trips', () => {
  it('access token: 15 minutes, sub lowercased, sid, jti, iss, typed at+jwt', async () => {
    const issued = await tokens.issueAccessToken({ sub: ADDRESS, sid: 'session-1' });
    const claims = await tokens.verifyAccessToken(issued.token);

    expect(claims).toEqual({
      sub: SUB,
      sid: 'session-1',
      jti: issued.jti,
      iss: 'messaging-service',
      iat: claims.iat,
      exp: claims.iat + 900,
    });
    expect(issued.expiresAt.getTime() - issued.issuedAt.getTime()).toBe(900_000);
    expect(decodeProtectedHeader(issued.token)).toEqual({
      alg: 'EdDSA',
      kid: keyRing.signingKey.kid,
      typ: 'at+jwt',
    });
    expect(decodeJwt(issued.token)).toMatchObject({ aud: 'messaging-api', token_use: 'access' });
    expect(decodeJwt(issued.token).cnf).toBeUndefined();
  });

  it('refresh token: 7 days, with family, unbound or bound to a DPoP key', async () => {
    const unbound = await tokens.issueRefreshToken({
      sub: ADDRESS,
      sid: 'session-1',
      fam: 'family-1',
    });
    const bound = await tokens.issueRefreshToken({
      sub: ADDRESS,
      sid: 'session-1',
      fam: 'family-1',
      jkt: 'thumbprint',
    });

    const unboundClaims = await tokens.verifyRefreshToken(unbound.token);
    expect(unboundClaims).toEqual({
      sub: SUB,
      sid: 'session-1',
      fam: 'family-1',
      jti: unbound.jti,
      iss: 'messaging-service',
      iat: unboundClaims.iat,
      exp: unboundClaims.iat + 7 * 86400,
    });
    expect(await tokens.verifyRefreshToken(bound.token)).toMatchObject({
      fam: 'family-1',
      jkt: 'thumbprint',
    });
    expect(decodeJwt(bound.token).cnf).toEqual({ jkt: 'thumbprint' });
    expect(decodeProtectedHeader(bound.token).typ).toBe('refresh+jwt');
    expect(unbound.jti).not.toBe(bound.jti);
  });

  it('MFA-pending token: 5 minutes, purpose sign_in', async () => {
    const issued = await tokens.issueMfaToken({ sub: ADDRESS });
    const claims = await tokens.verifyMfaToken(issued.token);

    expect(claims).toEqual({
      sub: SUB,
      purpose: 'sign_in',
      jti: issued.jti,
      iss: 'messaging-service',
      iat: claims.iat,
      exp: claims.iat + 300,
    });
    expect(decodeProtectedHeader(issued.token).typ).toBe('mfa+jwt');
  });

  it('honours configured lifetimes and issuer', async () => {
    const custom = new TokenService({
      keyRing,
      issuer: 'https://issuer.example',
      accessTokenTtlSeconds: 60,
      refreshTokenTtlSeconds: 120,
      mfaTokenTtlSeconds: 30,
    });
    const access = await custom.issueAccessToken({ sub: SUB, sid: 's' });
    const refresh = await custom.issueRefreshToken({ sub: SUB, sid: 's', fam: 'f' });
    const mfa = await custom.issueMfaToken({ sub: SUB });

    expect((await custom.verifyAccessToken(access.token)).iss).toBe('https://issuer.example');
    expect(
      [access, refresh, mfa].map(
        (issued) => (issued.expiresAt.getTime() - issued.issuedAt.getTime()) / 1000,
      ),
    ).toEqual([60, 120, 30]);
    await expectRefused(tokens.verifyAccessToken(access.token), 'invalid', /iss/);
  });
});

describe('one kind never passes as another', () => {
  const kinds = ['access', 'refresh', 'mfa'] as const;
  type Kind = (typeof kinds)[number];
  const issue = (kind: Kind) =>
    kind === 'access'
      ? tokens.issueAccessToken({ sub: SUB, sid: 's' })
      : kind === 'refresh'
        ? tokens.issueRefreshToken({ sub: SUB, sid: 's', fam: 'f' })
        : tokens.issueMfaToken({ sub: SUB });
  const verify = (kind: Kind, token: string) =>
    kind === 'access'
      ? tokens.verifyAccessToken(token)
      : kind === 'refresh'
        ? tokens.verifyRefreshToken(token)
        : tokens.verifyMfaToken(token);

  const pairs = kinds.flatMap((issued) =>
    kinds.filter((verified) => verified !== issued).map((verified) => [issued, verified] as const),
  );

  it.each(pairs)('%s token refused as %s token', async (issued, verified) => {
    const { token } = await issue(issued);
    await expectRefused(verify(verified, token), 'invalid', /typ/);
  });

  it('each of typ, aud and token_use is checked on its own', async () => {
    const { privateKey, kid, alg } = keyRing.signingKey;
    const forge = (header: { typ: string }, claims: JWTPayload) =>
      new SignJWT({ sid: 's', jti: 'j', ...claims })
        .setProtectedHeader({ alg, kid, ...header })
        .setIssuer('messaging-service')
        .setSubject(SUB)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey);
    const genuine = { aud: 'messaging-api', token_use: 'access' };

    expect((await tokens.verifyAccessToken(await forge({ typ: 'at+jwt' }, genuine))).sid).toBe('s');
    await expectRefused(
      tokens.verifyAccessToken(await forge({ typ: 'refresh+jwt' }, genuine)),
      'invalid',
      /typ/,
    );
    await expectRefused(
      tokens.verifyAccessToken(
        await forge({ typ: 'at+jwt' }, { ...genuine, aud: 'messaging-mfa' }),
      ),
      'invalid',
      /aud/,
    );
    await expectRefused(
      tokens.verifyAccessToken(
        await forge({ typ: 'at+jwt' }, { ...genuine, token_use: 'refresh' }),
      ),
      'invalid',
      /token_use/,
    );
    await expectRefused(
      tokens.verifyAccessToken(await forge({ typ: 'at+jwt' }, { ...genuine, sid: undefined })),
      'invalid',
      /sid/,
    );
  });
});

describe('time', () => {
  const issuedBy = (options: Partial<TokenServiceOptions>) =>
    new TokenService({ keyRing, ...options });

  it('an expired token is reported as expired', async () => {
    const { token } = await issuedBy({ now: minutesAgo(16) }).issueAccessToken({
      sub: SUB,
      sid: 's',
    });
    await expectRefused(tokens.verifyAccessToken(token), 'expired', /exp/);
  });

  it('tolerates 30 seconds of clock skew either way, not more', async () => {
    const justExpired = await issuedBy({ now: minutesAgo(15 + 20 / 60) }).issueAccessToken({
      sub: SUB,
      sid: 's',
    });
    const longExpired = await issuedBy({ now: minutesAgo(15 + 40 / 60) }).issueAccessToken({
      sub: SUB,
      sid: 's',
    });
    const slightlyAhead = await issuedBy({ now: minutesAgo(-20 / 60) }).issueAccessToken({
      sub: SUB,
      sid: 's',
    });
    const farAhead = await issuedBy({ now: minutesAgo(-2) }).issueAccessToken({
      sub: SUB,
      sid: 's',
    });

    await expect(tokens.verifyAccessToken(justExpired.token)).resolves.toMatchObject({ sid: 's' });
    await expectRefused(tokens.verifyAccessToken(longExpired.token), 'expired', /exp/);
    await expect(tokens.verifyAccessToken(slightlyAhead.token)).resolves.toMatchObject({
      sid: 's',
    });
    await expectRefused(tokens.verifyAccessToken(farAhead.token), 'invalid', /iat.*past/);
  });

  it('an expired token of the wrong kind is invalid, not expired', async () => {
    const { token } = await issuedBy({ now: minutesAgo(16) }).issueAccessToken({
      sub: SUB,
      sid: 's',
    });
    await expectRefused(tokens.verifyRefreshToken(token), 'invalid', /typ/);
  });

  it('an MFA-pending token expires after 5 minutes', async () => {
    const { token } = await issuedBy({ now: minutesAgo(6) }).issueMfaToken({ sub: SUB });
    await expectRefused(tokens.verifyMfaToken(token), 'expired', /exp/);
  });
});

describe('remembered verifications (verified-tokens.ts)', () => {
  it('a verified access token is still refused as expired once its lifetime and the tolerance pass', async () => {
    let clock = Date.now();
    const service = new TokenService({ keyRing, now: () => new Date(clock) });
    const { token } = await service.issueAccessToken({ sub: SUB, sid: 's' });
    await expect(service.verifyAccessToken(token)).resolves.toMatchObject({ sub: SUB, sid: 's' });
    clock += (15 * 60 + 20) * 1000; // 20 s past exp: within the 30 s tolerance
    await expect(service.verifyAccessToken(token)).resolves.toMatchObject({ sub: SUB, sid: 's' });
    clock += 20_000;
    await expectRefused(service.verifyAccessToken(token), 'expired', /exp/);
  });

  it('a tampered copy of a verified token is checked on its own and refused', async () => {
    const { token } = await tokens.issueAccessToken({ sub: SUB, sid: 's' });
    await expect(tokens.verifyAccessToken(token)).resolves.toMatchObject({ sid: 's' });
    const tampered = withPayload(token, (payload) => ({ ...payload, sid: 'other' }));
    await expectRefused(tokens.verifyAccessToken(tampered), 'invalid', /signature/);
  });

  it('hands out copies: a caller changing its claims does not change the next answer', async () => {
    const { token } = await tokens.issueAccessToken({ sub: SUB, sid: 's' });
    const first = await tokens.verifyAccessToken(token);
    first.sid = 'changed';
    await expect(tokens.verifyAccessToken(token)).resolves.toMatchObject({ sid: 's' });
  });
});

describe('forgeries and corruption', () => {
  it('a tampered payload is invalid', async () => {
    const { token } = await tokens.issueAccessToken({ sub: SUB, sid: 's' });
    const tampered = withPayload(token, (payload) => ({
      ...payload,
      sub: '0x0000000000000000000000000000000000000000',
    }));
    await expectRefused(tokens.verifyAccessToken(tampered), 'invalid', /signature/);
  });

  it('an expired token with its exp pushed forward is invalid, not valid nor expired', async () => {
    const { token } = await new TokenService({ keyRing, now: minutesAgo(16) }).issueAccessToken({
      sub: SUB,
      sid: 's',
    });
    const extended = withPayload(token, (payload) => ({
      ...payload,
      exp: (payload.exp as number) + 3600,
    }));
    await expectRefused(tokens.verifyAccessToken(extended), 'invalid', /signature/);
  });

  it('a token signed by a key outside the ring (unknown kid) is invalid', async () => {
    const stranger = await loadKeyRing({ dataDir: join(dataDir, 'stranger') });
    const { token } = await new TokenService({ keyRing: stranger }).issueAccessToken({
      sub: SUB,
      sid: 's',
    });
    await expectRefused(tokens.verifyAccessToken(token), 'invalid', /no applicable key/);
  });

  it('a token signed by a stranger under our kid is invalid', async () => {
    const { privateKey } = await generateKeyPair('EdDSA');
    const token = await new SignJWT({
      sid: 's',
      aud: 'messaging-api',
      token_use: 'access',
      jti: 'j',
    })
      .setProtectedHeader({ alg: 'EdDSA', kid: keyRing.signingKey.kid, typ: 'at+jwt' })
      .setIssuer('messaging-service')
      .setSubject(SUB)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
    await expectRefused(tokens.verifyAccessToken(token), 'invalid', /signature/);
  });

  it('a token without kid is invalid even when its signature is ours', async () => {
    const { privateKey, alg } = keyRing.signingKey;
    const token = await new SignJWT({
      sid: 's',
      aud: 'messaging-api',
      token_use: 'access',
      jti: 'j',
    })
      .setProtectedHeader({ alg, typ: 'at+jwt' })
      .setIssuer('messaging-service')
      .setSubject(SUB)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
    await expectRefused(tokens.verifyAccessToken(token), 'invalid', /names no key/);
  });

  it('an unsigned token (alg none) is invalid', async () => {
    const { token } = await tokens.issueAccessToken({ sub: SUB, sid: 's' });
    const unsigned = new UnsecuredJWT(decodeJwt(token)).encode();
    const withOurHeader = [
      base64url.encode(JSON.stringify({ alg: 'none', kid: keyRing.signingKey.kid, typ: 'at+jwt' })),
      token.split('.')[1],
      '',
    ].join('.');

    await expectRefused(tokens.verifyAccessToken(unsigned), 'invalid', /alg/);
    await expectRefused(tokens.verifyAccessToken(withOurHeader), 'invalid', /alg/);
  });

  it('an HS256 token keyed with our public key (algorithm confusion) is invalid', async () => {
    const { token } = await tokens.issueAccessToken({ sub: SUB, sid: 's' });
    const publicJwk = keyRing.publicJwks().keys[0];
    const secrets = [
      new TextEncoder().encode(JSON.stringify(publicJwk)),
      base64url.decode(publicJwk?.x as string),
    ];
    for (const secret of secrets) {
      const confused = await new SignJWT(decodeJwt(token))
        .setProtectedHeader({ alg: 'HS256', kid: keyRing.signingKey.kid, typ: 'at+jwt' })
        .sign(secret);
      await expectRefused(tokens.verifyAccessToken(confused), 'invalid', /alg/);
    }
  });

  it.each(['', 'garbage', 'a.b.c', 'a.b', '..', `${'x'.repeat(20)}.${'y'.repeat(20)}.`])(
    'malformed %p is invalid',
    async (token) => {
      await expectRefused(tokens.verifyAccessToken(token), 'invalid', /JWS/);
    },
  );
});

describe('key rotation', () => {
  it('a token of the previous key verifies while that key is listed, and not after', async () => {
    const { token } = await tokens.issueAccessToken({ sub: SUB, sid: 's' });
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const signingKey = await exportPKCS8(privateKey);
    const rotated = await loadKeyRing({
      dataDir,
      signingKey,
      verificationKeysJwks: JSON.stringify(keyRing.publicJwks()),
    });
    const retired = await loadKeyRing({ dataDir, signingKey });

    await expect(
      new TokenService({ keyRing: rotated }).verifyAccessToken(token),
    ).resolves.toMatchObject({ sub: SUB });
    await expectRefused(
      new TokenService({ keyRing: retired }).verifyAccessToken(token),
      'invalid',
      /no applicable key/,
    );
  });

  it('the new key signs, and the old deployment verifies it once given the new public key', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const rotated = await loadKeyRing({
      dataDir,
      signingKey: await exportPKCS8(privateKey),
      signingKeyId: 'next',
    });
    const { token } = await new TokenService({ keyRing: rotated }).issueAccessToken({
      sub: SUB,
      sid: 's',
    });
    const oldWithNextKey = await loadKeyRing({
      dataDir,
      verificationKeysJwks: JSON.stringify({ keys: rotated.publicJwks().keys }),
    });

    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'ES256', kid: 'next' });
    await expectRefused(tokens.verifyAccessToken(token), 'invalid', /no applicable key/);
    await expect(
      new TokenService({ keyRing: oldWithNextKey }).verifyAccessToken(token),
    ).resolves.toMatchObject({ sid: 's' });
  });
});
