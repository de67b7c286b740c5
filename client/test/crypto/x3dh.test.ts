/**
 * X3DH against Signal's formula computed independently with node:crypto (X25519 and HKDF), and
 * agreement between both sides with and without a one-time prekey.
 */
import { createPrivateKey, createPublicKey, diffieHellman, hkdfSync } from 'node:crypto';
import { newX25519Pair } from '../../src/crypto/local-identity.js';
import type { KeyPair } from '../../src/crypto/local-identity.js';
import { x3dhInitiate, x3dhRespond } from '../../src/crypto/x3dh.js';

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const nodeDh = (own: KeyPair, peer: Uint8Array) =>
  diffieHellman({
    privateKey: createPrivateKey({
      key: { kty: 'OKP', crv: 'X25519', d: b64url(own.secretKey), x: b64url(own.publicKey) },
      format: 'jwk',
    }),
    publicKey: createPublicKey({
      key: { kty: 'OKP', crv: 'X25519', x: b64url(peer) },
      format: 'jwk',
    }),
  });

function keys() {
  return {
    aliceIdentity: newX25519Pair(),
    bobIdentity: newX25519Pair(),
    signedPreKey: newX25519Pair(),
    oneTimePreKey: newX25519Pair(),
  };
}

const bundleOf = (k: ReturnType<typeof keys>, withOneTime: boolean) => ({
  address: '0xb0b',
  registrationId: 1,
  identityKey: k.bobIdentity.publicKey,
  ed25519PublicKey: new Uint8Array(32),
  signedPreKey: { keyId: 1, publicKey: k.signedPreKey.publicKey },
  ...(withOneTime && { oneTimePreKey: { keyId: 2, publicKey: k.oneTimePreKey.publicKey } }),
});

describe('X3DH', () => {
  it.each([true, false])(
    'matches the specification computed with node:crypto (one-time prekey: %s)',
    (withOneTime) => {
      const k = keys();
      const alice = x3dhInitiate(k.aliceIdentity, bundleOf(k, withOneTime));
      // Bob's view, with node:crypto: DH1..DH4 from his secrets, then HKDF(F || DHs).
      const ephemeral = alice.ephemeralKey;
      const dhs = [
        nodeDh(k.signedPreKey, k.aliceIdentity.publicKey),
        nodeDh(k.bobIdentity, ephemeral),
        nodeDh(k.signedPreKey, ephemeral),
        ...(withOneTime ? [nodeDh(k.oneTimePreKey, ephemeral)] : []),
      ];
      const expected = Buffer.from(
        hkdfSync(
          'sha256',
          Buffer.concat([Buffer.alloc(32, 0xff), ...dhs]),
          Buffer.alloc(32),
          'E2EE v1 X3DH',
          32,
        ),
      );
      expect(Buffer.from(alice.sharedSecret)).toEqual(expected);
      expect(Buffer.from(alice.associatedData)).toEqual(
        Buffer.concat([k.aliceIdentity.publicKey, k.bobIdentity.publicKey]),
      );
      const bob = x3dhRespond(
        k.bobIdentity,
        k.signedPreKey,
        withOneTime ? k.oneTimePreKey.secretKey : undefined,
        k.aliceIdentity.publicKey,
        ephemeral,
      );
      expect(bob).toEqual({
        sharedSecret: alice.sharedSecret,
        associatedData: alice.associatedData,
      });
    },
  );

  it('gives another secret when any key Bob uses is not the one Alice used', () => {
    const k = keys();
    const alice = x3dhInitiate(k.aliceIdentity, bundleOf(k, true));
    const respond = (change: Partial<ReturnType<typeof keys>>) => {
      const used = { ...k, ...change };
      return x3dhRespond(
        used.bobIdentity,
        used.signedPreKey,
        used.oneTimePreKey.secretKey,
        used.aliceIdentity.publicKey,
        alice.ephemeralKey,
      ).sharedSecret;
    };
    for (const change of [
      { aliceIdentity: newX25519Pair() },
      { bobIdentity: newX25519Pair() },
      { signedPreKey: newX25519Pair() },
      { oneTimePreKey: newX25519Pair() },
    ])
      expect(respond(change)).not.toEqual(alice.sharedSecret);
  });
});
