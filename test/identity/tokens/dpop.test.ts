import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calculateThumbprint, generateKeyPair, generateProof } from 'dpop';
import type { JWSAlgorithm, KeyPair } from 'dpop';
import * as jose from 'jose';
import type { JWK, JWTPayload } from 'jose';
import { pino } from 'pino';
import { DpopProofError, DpopValidator } from '../../../src/identity/tokens/dpop.js';
import type { DpopRequest, DpopValidatorOptions } from '../../../src/identity/tokens/dpop.js';
import { loadKeyRing } from '../../../src/identity/tokens/key-ring.js';
import { TokenService } from '../../../src/identity/tokens/token-service.js';
import { MemorySharedState } from '../../../src/platform/shared-state/memory-shared-state.js';
import { MemoryStore } from '../../../src/platform/shared-state/memory-store.js';
import type { SetOptions } from '../../../src/platform/shared-state/shared-state.js';

const URI = 'https://api.example.com/api/v1/auth/refresh';

let store: MemoryStore;
let validator: DpopValidator;
let keyPair: KeyPair;

const newValidator = (options: Partial<DpopValidatorOptions> = {}) =>
  new DpopValidator({
    sharedState: new MemorySharedState({
      keyPrefix: 'test:',
      logger: pino({ enabled: false }),
      store,
    }),
    ...options,
  });
const secondsFromNow = (seconds: number) => () => new Date(Date.now() + seconds * 1000);
const request = (
  header: DpopRequest['header'],
  overrides: Partial<DpopRequest> = {},
): DpopRequest => ({ header, method: 'POST', uri: URI, ...overrides });

beforeAll(async () => {
  keyPair = await generateKeyPair('ES256');
});

beforeEach(() => {
  store = new MemoryStore();
  validator = newValidator();
});

/** Asserts the refusal, and the detail that shows it was refused for the intended reason. */
async function expectRefused(promise: Promise<unknown>, detail: RegExp): Promise<void> {
  const error: unknown = await promise.then(
    () => undefined,
    (rejection: unknown) => rejection,
  );
  if (!(error instanceof DpopProofError))
    throw new Error(`expected a DpopProofError, got ${String(error)}`);
  expect({ reason: error.reason, message: error.message, detail: error.detail }).toEqual({
    reason: 'INVALID_DPOP_PROOF',
    message: 'invalid DPoP proof',
    detail: expect.stringMatching(detail),
  });
}

interface CraftOptions {
  /** Replaces members of the genuine header; undefined removes one. */
  header?: Record<string, unknown>;
  claims?: JWTPayload;
  /** Signs with another key than the one in the `jwk` header. */
  signWith?: jose.CryptoKey | Uint8Array;
}

/** A proof made by hand with a new key, for what the `dpop` library cannot produce. */
async function craftProof({
  header = {},
  claims = {},
  signWith,
}: CraftOptions = {}): Promise<string> {
  const { privateKey, publicKey } = await jose.generateKeyPair('ES256');
  const jwk = await jose.exportJWK(publicKey);
  return new jose.SignJWT({
    jti: randomUUID(),
    htm: 'POST',
    htu: URI,
    iat: Math.floor(Date.now() / 1000),
    ...claims,
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk, ...header })
    .sign(signWith ?? privateKey);
}

describe('valid proofs', () => {
  it.each<JWSAlgorithm>(['ES256', 'Ed25519', 'RS256', 'PS256'])(
    'a %s proof from the dpop library is accepted, with its key thumbprint',
    async (alg) => {
      const keys = await generateKeyPair(alg);
      const proof = await generateProof(keys, URI, 'POST');

      const result = await validator.validate(request(proof));

      expect(result).toEqual({
        jkt: await calculateThumbprint(keys.publicKey),
        jti: jose.decodeJwt(proof).jti,
      });
    },
  );

  it('a proof for the bound key is accepted', async () => {
    const jkt = await calculateThumbprint(keyPair.publicKey);
    await expect(
      validator.validate(request(await generateProof(keyPair, URI, 'POST'), { expectedJkt: jkt })),
    ).resolves.toMatchObject({ jkt });
  });

  it('a hand-made proof is accepted (the baseline of the forgeries below)', async () => {
    await expect(validator.validate(request(await craftProof()))).resolves.toMatchObject({
      jti: expect.any(String),
    });
  });

  it('a nonce is not required, and ignored when sent', async () => {
    await expect(
      validator.validate(request(await generateProof(keyPair, URI, 'POST', 'some-nonce'))),
    ).resolves.toBeDefined();
  });

  it('an array holding exactly one header value is accepted', async () => {
    await expect(
      validator.validate(request([await generateProof(keyPair, URI, 'POST')])),
    ).resolves.toBeDefined();
  });
});

describe('binding', () => {
  it('a proof made with another key than the bound one is refused', async () => {
    const other = await generateKeyPair('ES256');
    const expectedJkt = await calculateThumbprint(other.publicKey);
    await expectRefused(
      validator.validate(request(await generateProof(keyPair, URI, 'POST'), { expectedJkt })),
      /not the key the token is bound to/,
    );
  });

  it('binds a refresh token at sign-in and accepts only that key at refresh', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'dpop-'));
    try {
      const tokens = new TokenService({ keyRing: await loadKeyRing({ dataDir }) });
      const atSignIn = await validator.validate(
        request(await generateProof(keyPair, 'https://api.example.com/api/v1/initialize', 'POST'), {
          uri: 'https://api.example.com/api/v1/initialize',
        }),
      );
      const { token } = await tokens.issueRefreshToken({
        sub: '0xab',
        sid: 's',
        fam: 'f',
        jkt: atSignIn.jkt,
      });

      const { jkt } = await tokens.verifyRefreshToken(token);
      const other = await generateKeyPair('ES256');

      await expect(
        validator.validate(
          request(await generateProof(keyPair, URI, 'POST'), { expectedJkt: jkt }),
        ),
      ).resolves.toBeDefined();
      await expectRefused(
        validator.validate(request(await generateProof(other, URI, 'POST'), { expectedJkt: jkt })),
        /bound/,
      );
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('method and URI', () => {
  it('a proof for another method is refused (methods are case-sensitive)', async () => {
    await expectRefused(
      validator.validate(request(await generateProof(keyPair, URI, 'GET'))),
      /htm/,
    );
    await expectRefused(
      validator.validate(request(await generateProof(keyPair, URI, 'post'))),
      /htm/,
    );
  });

  it.each([
    ['another path', 'https://api.example.com/api/v1/auth/revoke'],
    ['another host', 'https://evil.example.com/api/v1/auth/refresh'],
    ['another scheme', 'http://api.example.com/api/v1/auth/refresh'],
    ['another port', 'https://api.example.com:8443/api/v1/auth/refresh'],
    ['a trailing slash', 'https://api.example.com/api/v1/auth/refresh/'],
    ['a path of different case', 'https://api.example.com/API/v1/auth/refresh'],
    ['a relative URI', '/api/v1/auth/refresh'],
    ['a non-http scheme', 'wss://api.example.com/api/v1/auth/refresh'],
  ])('a proof for %s is refused', async (_, htu) => {
    await expectRefused(
      validator.validate(request(await generateProof(keyPair, htu, 'POST'))),
      /htu/,
    );
  });

  it.each([
    ['scheme and host case', 'HTTPS://API.Example.COM/api/v1/auth/refresh', URI],
    ['the default port', 'https://api.example.com:443/api/v1/auth/refresh', URI],
    ['a query and fragment in htu', `${URI}?client=web#top`, URI],
    ['a query in the request URI', URI, `${URI}?trace=1`],
    ['percent-encoded unreserved characters', 'https://api.example.com/api/v1/auth/%72efresh', URI],
    ['percent-encoding case', 'https://api.example.com/a%2fb', 'https://api.example.com/a%2Fb'],
    ['dot segments', 'https://api.example.com/api/v1/x/../auth/./refresh', URI],
    [
      'an explicit http default port',
      'http://localhost:80/api/v1/auth/refresh',
      'http://localhost/api/v1/auth/refresh',
    ],
  ])('equivalent spellings are accepted: %s', async (_, htu, uri) => {
    await expect(
      validator.validate(request(await generateProof(keyPair, htu, 'POST'), { uri })),
    ).resolves.toBeDefined();
  });

  it('a request URI the server cannot compare is a programming error, not a bad proof', async () => {
    await expect(
      validator.validate(
        request(await generateProof(keyPair, URI, 'POST'), { uri: '/api/v1/auth/refresh' }),
      ),
    ).rejects.toThrow(TypeError);
  });
});

describe('freshness', () => {
  it('accepts an iat up to 60 seconds away either way, and refuses one further', async () => {
    const proof = () => generateProof(keyPair, URI, 'POST');

    await expect(
      newValidator({ now: secondsFromNow(55) }).validate(request(await proof())),
    ).resolves.toBeDefined();
    await expect(
      newValidator({ now: secondsFromNow(-55) }).validate(request(await proof())),
    ).resolves.toBeDefined();
    await expectRefused(
      newValidator({ now: secondsFromNow(65) }).validate(request(await proof())),
      /iat/,
    );
    await expectRefused(
      newValidator({ now: secondsFromNow(-65) }).validate(request(await proof())),
      /iat/,
    );
  });

  it('the window is configurable', async () => {
    const strict = newValidator({ iatWindowSeconds: 5, now: secondsFromNow(10) });
    await expectRefused(strict.validate(request(await generateProof(keyPair, URI, 'POST'))), /iat/);
  });

  it('a replayed proof is refused, on this pod and on any other', async () => {
    const proof = await generateProof(keyPair, URI, 'POST');

    await validator.validate(request(proof));

    await expectRefused(validator.validate(request(proof)), /jti already used/);
    await expectRefused(newValidator().validate(request(proof)), /jti already used/);
  });

  it('the jti is remembered for the whole window the proof could be accepted in', async () => {
    const ttls: Array<number | undefined> = [];
    class RecordingSharedState extends MemorySharedState {
      override set(key: string, value: string, options?: SetOptions): Promise<boolean> {
        ttls.push(options?.ttlMs);
        return super.set(key, value, options);
      }
    }
    const recording = new DpopValidator({
      sharedState: new RecordingSharedState({
        keyPrefix: 'test:',
        logger: pino({ enabled: false }),
      }),
    });

    await recording.validate(request(await generateProof(keyPair, URI, 'POST')));

    expect(ttls).toEqual([121_000]);
  });

  it('a proof refused for another reason does not use up its jti', async () => {
    const proof = await generateProof(keyPair, URI, 'POST');
    const otherJkt = await calculateThumbprint((await generateKeyPair('ES256')).publicKey);

    await expectRefused(validator.validate(request(proof, { expectedJkt: otherJkt })), /bound/);
    await expectRefused(validator.validate(request(proof, { method: 'PUT' })), /htm/);
    await expect(validator.validate(request(proof))).resolves.toBeDefined();
  });

  it('the same jti under two different keys is two different proofs', async () => {
    const jti = randomUUID();
    await expect(
      validator.validate(request(await craftProof({ claims: { jti } }))),
    ).resolves.toMatchObject({ jti });
    await expect(
      validator.validate(request(await craftProof({ claims: { jti } }))),
    ).resolves.toMatchObject({ jti });
  });
});

describe('malformed and forged proofs', () => {
  it('no header, several headers, or a folded header line is refused', async () => {
    const proof = await generateProof(keyPair, URI, 'POST');
    const another = await generateProof(keyPair, URI, 'POST');

    await expectRefused(validator.validate(request(undefined)), /no DPoP header/);
    await expectRefused(validator.validate(request([])), /no DPoP header/);
    await expectRefused(validator.validate(request([proof, another])), /more than one/);
    await expectRefused(validator.validate(request(`${proof}, ${another}`)), /not a compact JWS/);
    await expectRefused(validator.validate(request(` ${proof}`)), /not a compact JWS/);
    await expectRefused(validator.validate(request('')), /not a compact JWS/);
    await expectRefused(validator.validate(request('a.b.c')), /JWS Protected Header is invalid/);
  });

  it('a proof without jwk header is refused', async () => {
    await expectRefused(
      validator.validate(request(await craftProof({ header: { jwk: undefined } }))),
      /jwk/,
    );
  });

  it('a proof whose jwk is a private key is refused', async () => {
    const { privateKey } = await jose.generateKeyPair('ES256', { extractable: true });
    const privateJwk: JWK = await jose.exportJWK(privateKey);
    expect(privateJwk.d).toBeDefined();
    await expectRefused(
      validator.validate(
        request(await craftProof({ header: { jwk: privateJwk }, signWith: privateKey })),
      ),
      /public key/,
    );
  });

  it.each([
    ['another typ', { typ: 'jwt' }],
    ['an access-token typ', { typ: 'at+jwt' }],
    ['no typ', { typ: undefined }],
  ])('a proof with %s is refused', async (_, header) => {
    await expectRefused(validator.validate(request(await craftProof({ header }))), /typ/);
  });

  it('a proof signed by another key than its jwk is refused', async () => {
    const { privateKey } = await jose.generateKeyPair('ES256');
    await expectRefused(
      validator.validate(request(await craftProof({ signWith: privateKey }))),
      /signature verification failed/,
    );
  });

  it('a symmetric (HS256) proof is refused, whatever its jwk', async () => {
    const secret = new Uint8Array(32).fill(7);
    const jwk = { kty: 'oct', k: jose.base64url.encode(secret) };
    await expectRefused(
      validator.validate(
        request(await craftProof({ header: { alg: 'HS256', jwk }, signWith: secret })),
      ),
      /alg/,
    );
  });

  it('an unsigned (alg none) proof is refused', async () => {
    const proof = await generateProof(keyPair, URI, 'POST');
    const unsignedHeader = jose.base64url.encode(
      JSON.stringify({ ...jose.decodeProtectedHeader(proof), alg: 'none' }),
    );
    const payload = proof.split('.')[1] as string;

    await expectRefused(
      validator.validate(request(`${unsignedHeader}.${payload}.`)),
      /compact JWS/,
    );
    await expectRefused(validator.validate(request(`${unsignedHeader}.${payload}.AAAA`)), /alg/);
  });

  it('a proof whose alg does not fit its key is refused', async () => {
    const { privateKey } = await jose.generateKeyPair('EdDSA');
    // Signed by an Ed25519 key and labelled EdDSA, but the jwk it carries is a P-256 key.
    await expectRefused(
      validator.validate(
        request(await craftProof({ header: { alg: 'EdDSA' }, signWith: privateKey })),
      ),
      /JWK "alg"/,
    );
  });

  it.each(['jti', 'htm', 'htu', 'iat'])('a proof without %s is refused', async (claim) => {
    await expectRefused(
      validator.validate(request(await craftProof({ claims: { [claim]: undefined } }))),
      new RegExp(claim),
    );
  });

  it('a proof with an empty jti is refused', async () => {
    await expectRefused(
      validator.validate(request(await craftProof({ claims: { jti: '' } }))),
      /jti/,
    );
  });

  it('a tampered claim breaks the signature', async () => {
    const proof = await generateProof(keyPair, 'https://api.example.com/elsewhere', 'POST');
    const [header, payload, signature] = proof.split('.') as [string, string, string];
    const changed = {
      ...(JSON.parse(new TextDecoder().decode(jose.base64url.decode(payload))) as JWTPayload),
      htu: URI,
    };
    await expectRefused(
      validator.validate(
        request(`${header}.${jose.base64url.encode(JSON.stringify(changed))}.${signature}`),
      ),
      /signature verification failed/,
    );
  });
});
