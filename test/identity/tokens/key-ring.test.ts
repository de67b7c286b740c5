import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, exportPKCS8, generateKeyPair } from 'jose';
import { embeddedSigningKeyPath } from '../../../src/identity/tokens/embedded-signing-key.js';
import { loadKeyRing } from '../../../src/identity/tokens/key-ring.js';

let dataDir: string;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'key-ring-'));
});

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('the embedded signing key', () => {
  it('is created once, private to its owner, and reused by later loads', async () => {
    const first = await loadKeyRing({ dataDir });
    const second = await loadKeyRing({ dataDir });

    expect(second.signingKey.kid).toBe(first.signingKey.kid);
    expect(second.publicJwks()).toEqual(first.publicJwks());
    expect(first.signingKey.alg).toBe('EdDSA');
    expect((await stat(embeddedSigningKeyPath(dataDir))).mode & 0o777).toBe(0o600);
    expect(await readdir(join(dataDir, 'keys'))).toEqual(['signing-key.pem']);
  });

  it('is the same key for loads racing on an empty data directory', async () => {
    const rings = await Promise.all(Array.from({ length: 5 }, () => loadKeyRing({ dataDir })));
    expect(new Set(rings.map((ring) => ring.signingKey.kid)).size).toBe(1);
    expect(await readdir(join(dataDir, 'keys'))).toEqual(['signing-key.pem']);
  });
});

describe('a configured signing key', () => {
  it('is read from PKCS#8 PEM, named by its thumbprint unless a kid is given, and writes nothing', async () => {
    const pem = await exportPKCS8(
      (await generateKeyPair('ES256', { extractable: true })).privateKey,
    );

    const unnamed = await loadKeyRing({ dataDir, signingKey: pem });
    const named = await loadKeyRing({ dataDir, signingKey: pem, signingKeyId: 'k-2026' });

    expect(unnamed.signingKey.alg).toBe('ES256');
    expect(unnamed.signingKey.kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(named.signingKey.kid).toBe('k-2026');
    expect(await readdir(dataDir)).toEqual([]);
  });

  it('is read from a SEC1 PEM (openssl ecparam -genkey)', async () => {
    const { privateKey } = generateKeyPairSync('ec', {
      namedCurve: 'P-256',
      privateKeyEncoding: { type: 'sec1', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    expect(privateKey).toContain('BEGIN EC PRIVATE KEY');
    await expect(loadKeyRing({ dataDir, signingKey: privateKey })).resolves.toMatchObject({
      signingKey: { alg: 'ES256' },
    });
  });

  it('is read from a private JWK, keeping its kid', async () => {
    const { privateKey } = await generateKeyPair('EdDSA', { extractable: true });
    const jwk = { ...(await exportJWK(privateKey)), kid: 'from-jwk' };

    const ring = await loadKeyRing({ dataDir, signingKey: JSON.stringify(jwk) });

    expect(ring.signingKey).toMatchObject({ kid: 'from-jwk', alg: 'EdDSA' });
  });

  it('refuses an unsupported key type', async () => {
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    await expect(
      loadKeyRing({ dataDir, signingKey: await exportPKCS8(privateKey) }),
    ).rejects.toThrow(/Ed25519 or P-256/);
  });

  it('refuses malformed JSON without quoting it', async () => {
    const promise = loadKeyRing({ dataDir, signingKey: '{"d": "secret-material"' });
    await expect(promise).rejects.toThrow('the signing key is not valid JSON');
  });
});

describe('the public JWKS', () => {
  it('lists only public members, signing key first, each labelled with kid, alg and use', async () => {
    const old = await loadKeyRing({ dataDir });
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const ring = await loadKeyRing({
      dataDir,
      signingKey: await exportPKCS8(privateKey),
      signingKeyId: 'new',
      verificationKeysJwks: JSON.stringify(old.publicJwks()),
    });

    const { keys } = ring.publicJwks();

    expect(keys.map((key) => [key.kid, key.alg, key.use])).toEqual([
      ['new', 'ES256', 'sig'],
      [old.signingKey.kid, 'EdDSA', 'sig'],
    ]);
    expect(keys.every((key) => key.d === undefined)).toBe(true);
  });

  it('cannot be changed through the returned object', async () => {
    const ring = await loadKeyRing({ dataDir });
    ring.publicJwks().keys.pop();
    expect(ring.publicJwks().keys).toHaveLength(1);
  });
});

describe('configured verification keys', () => {
  it('refuses a private key, a key without kid, a duplicate kid and a non-JWKS', async () => {
    const { privateKey } = await generateKeyPair('EdDSA', { extractable: true });
    const privateJwk = { ...(await exportJWK(privateKey)), kid: 'p' };
    const { d: _d, ...publicJwk } = privateJwk;
    const signing = await loadKeyRing({ dataDir });

    const load = (verificationKeysJwks: string) => loadKeyRing({ dataDir, verificationKeysJwks });

    await expect(load(JSON.stringify({ keys: [privateJwk] }))).rejects.toThrow(/private key/);
    await expect(
      load(JSON.stringify({ keys: [{ ...publicJwk, kid: undefined }] })),
    ).rejects.toThrow(/has no kid/);
    await expect(load(JSON.stringify({ keys: [publicJwk, publicJwk] }))).rejects.toThrow(
      /share the kid p/,
    );
    await expect(
      load(JSON.stringify({ keys: [{ ...publicJwk, kid: signing.signingKey.kid }] })),
    ).rejects.toThrow(/share the kid/);
    await expect(load(JSON.stringify([publicJwk]))).rejects.toThrow(/must be a JWKS/);
    await expect(load(JSON.stringify({ keys: [{ ...publicJwk, alg: 'ES256' }] }))).rejects.toThrow(
      /declares alg ES256/,
    );
  });
});
