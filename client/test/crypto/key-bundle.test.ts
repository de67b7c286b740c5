/**
 * The client's chain-of-trust check (keys.proto) on bundles made independently of the SDK:
 * the wallet's EIP-191 signature by viem, Ed25519 signatures by node:crypto. A bundle is accepted
 * only when every link holds.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { verifyKeyBundle } from '../../src/crypto/key-bundle.js';
import type { KeyBundleJson } from '../../src/crypto/key-bundle.js';
import { refusal } from './support/refusal.js';

const SERVICE = 'Service';
const raw = (key: KeyObject) =>
  Buffer.from(key.export({ format: 'jwk' }).x as string, 'base64url').toString('base64');
const x25519Public = () => raw(generateKeyPairSync('x25519').publicKey);

async function independentBundle(): Promise<{
  bundle: KeyBundleJson;
  signEd25519: (text: string | Buffer) => string;
}> {
  const wallet = privateKeyToAccount(generatePrivateKey());
  const address = wallet.address.toLowerCase();
  const ed = generateKeyPairSync('ed25519');
  const signEd25519 = (data: string | Buffer) =>
    sign(null, Buffer.from(data), ed.privateKey).toString('base64');
  const ed25519PublicKey = raw(ed.publicKey);
  const timestamp = Date.now();
  const binding = [
    `${SERVICE} Key Binding`,
    '',
    'I confirm that this wallet owns the end-to-end encryption key below.',
    '',
    `Wallet: ${address}`,
    `Ed25519 Public Key: ${ed25519PublicKey}`,
    `Timestamp: ${timestamp}`,
  ].join('\n');
  const signedPreKey = x25519Public();
  const bundle = {
    address,
    ed25519PublicKey,
    identityKey: x25519Public(),
    registrationId: 4242,
    signedPreKey: {
      keyId: 7,
      publicKey: signedPreKey,
      signature: signEd25519(Buffer.from(signedPreKey, 'base64')),
      timestamp: timestamp + 1,
    },
    oneTimePreKeys: [{ keyId: 9, publicKey: x25519Public() }],
    walletBinding: { signature: await wallet.signMessage({ message: binding }), timestamp },
    bundleSignature: '',
  };
  bundle.bundleSignature = signEd25519(
    [
      `${SERVICE} Key Bundle`,
      `Wallet: ${address}`,
      `Identity Key: ${bundle.identityKey}`,
      `Registration Id: ${bundle.registrationId}`,
      `Signed PreKey Id: ${bundle.signedPreKey.keyId}`,
      `Signed PreKey: ${bundle.signedPreKey.publicKey}`,
      `Signed PreKey Timestamp: ${bundle.signedPreKey.timestamp}`,
      `Wallet Binding Timestamp: ${bundle.walletBinding.timestamp}`,
    ].join('\n'),
  );
  return { bundle, signEd25519 };
}

describe('key bundle verification', () => {
  it('accepts a bundle made with independent libraries and returns its raw keys', async () => {
    const { bundle } = await independentBundle();
    const verified = verifyKeyBundle(bundle, bundle.address.toUpperCase(), SERVICE);
    expect(verified).toMatchObject({
      address: bundle.address,
      registrationId: 4242,
      signedPreKey: { keyId: 7 },
      oneTimePreKey: { keyId: 9 },
    });
    expect(Buffer.from(verified.identityKey).toString('base64')).toBe(bundle.identityKey);
  });

  it("accepts Signal's 33-byte 0x05-prefixed identity key as 32 raw bytes", async () => {
    const { bundle, signEd25519 } = await independentBundle();
    const prefixed = Buffer.concat([
      Buffer.from([5]),
      Buffer.from(bundle.identityKey, 'base64'),
    ]).toString('base64');
    const changed = { ...bundle, identityKey: prefixed };
    changed.bundleSignature = signEd25519(
      [
        `${SERVICE} Key Bundle`,
        `Wallet: ${bundle.address}`,
        `Identity Key: ${prefixed}`,
        `Registration Id: 4242`,
        `Signed PreKey Id: 7`,
        `Signed PreKey: ${bundle.signedPreKey.publicKey}`,
        `Signed PreKey Timestamp: ${bundle.signedPreKey.timestamp}`,
        `Wallet Binding Timestamp: ${bundle.walletBinding.timestamp}`,
      ].join('\n'),
    );
    const verified = verifyKeyBundle(changed, bundle.address, SERVICE);
    expect(Buffer.from(verified.identityKey).toString('base64')).toBe(bundle.identityKey);
  });

  it('refuses a bundle when any link of the chain of trust fails', async () => {
    const { bundle, signEd25519 } = await independentBundle();
    const other = await independentBundle();
    const cases: [string, KeyBundleJson, string?][] = [
      ['swapped identity key', { ...bundle, identityKey: x25519Public() }],
      [
        'swapped signed prekey',
        { ...bundle, signedPreKey: { ...bundle.signedPreKey, publicKey: x25519Public() } },
      ],
      [
        'signed prekey signature over other bytes',
        {
          ...bundle,
          signedPreKey: { ...bundle.signedPreKey, signature: signEd25519('something else') },
        },
      ],
      ['another Ed25519 key', { ...bundle, ed25519PublicKey: other.bundle.ed25519PublicKey }],
      ['another wallet binding', { ...bundle, walletBinding: other.bundle.walletBinding }],
      [
        'a contract-wallet signature',
        {
          ...bundle,
          walletBinding: { ...bundle.walletBinding, signature: `0x${'ab'.repeat(200)}` },
        },
      ],
      ['the registration id changed', { ...bundle, registrationId: 4243 }],
      ['malformed bundle signature', { ...bundle, bundleSignature: 'not base64!' }],
      ['published for another address', bundle, other.bundle.address],
    ];
    for (const [why, candidate, address] of cases)
      expect([
        why,
        refusal(() => verifyKeyBundle(candidate, address ?? bundle.address, SERVICE)),
      ]).toEqual([why, 'UNTRUSTED_IDENTITY']);
    expect(refusal(() => verifyKeyBundle(bundle, bundle.address, 'Another Service'))).toBe(
      'UNTRUSTED_IDENTITY',
    );
  });
});
