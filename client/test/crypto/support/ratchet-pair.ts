/**
 * Alice's and Bob's Double Ratchet states after a real X3DH over locally made keys (Bob's bundle
 * with a one-time prekey), for the protocol tests that need no service.
 */
import { initiatorState, responderState } from '../../../src/crypto/double-ratchet.js';
import type { RatchetState } from '../../../src/crypto/double-ratchet.js';
import { newX25519Pair } from '../../../src/crypto/local-identity.js';
import { x3dhInitiate, x3dhRespond } from '../../../src/crypto/x3dh.js';

export function ratchetPair(): { alice: RatchetState; bob: RatchetState } {
  const aliceIdentity = newX25519Pair();
  const bobIdentity = newX25519Pair();
  const signedPreKey = newX25519Pair();
  const oneTimePreKey = newX25519Pair();
  const initiated = x3dhInitiate(aliceIdentity, {
    address: '0xb0b',
    registrationId: 1,
    identityKey: bobIdentity.publicKey,
    ed25519PublicKey: new Uint8Array(32),
    signedPreKey: { keyId: 1, publicKey: signedPreKey.publicKey },
    oneTimePreKey: { keyId: 2, publicKey: oneTimePreKey.publicKey },
  });
  const responded = x3dhRespond(
    bobIdentity,
    signedPreKey,
    oneTimePreKey.secretKey,
    aliceIdentity.publicKey,
    initiated.ephemeralKey,
  );
  return {
    alice: initiatorState(initiated.sharedSecret, initiated.associatedData, signedPreKey.publicKey),
    bob: responderState(responded.sharedSecret, responded.associatedData, signedPreKey),
  };
}
