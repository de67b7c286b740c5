/**
 * Sealed sender: the envelope relay.proto's `sealed_payload` carries. The sender's identity and
 * certificate travel encrypted to the recipient's identity key, so the service relays it without
 * learning who sent it. The construction is Signal's sealed sender (v1), on this module's AEAD:
 *
 *   layer 1  e = fresh X25519 key; (chain, k1) = HKDF(DH(e, IK_r), salt = IK_r || e_pub)
 *            static = AEAD(k1, IK_s, AD = e_pub || IK_r)            — hides the sender's identity key
 *   layer 2  k2 = HKDF(DH(IK_s, IK_r), salt = chain || static)
 *            content = AEAD(k2, certificate ‖ inner message, AD = IK_s || IK_r)
 *
 * Layer 2 can only be made with the sender's identity secret key, so opening it authenticates
 * IK_s; the recipient then requires the certificate (verified against the pinned trust root) to
 * name that same key, which ties the sealed message to the certified wallet address.
 */
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes, utf8ToBytes } from './bytes.js';
import { aeadOpen, aeadSeal } from './aead.js';
import { E2eeError } from './e2ee-error.js';
import { newX25519Pair } from './local-identity.js';
import type { KeyPair } from './local-identity.js';
import { certifies, verifySenderCertificate } from './sender-certificate.js';
import type { SenderCertificate, TrustRootKey } from './sender-certificate.js';
import { MessageType, envelope, openEnvelope } from './wire-format.js';
import { ByteReader, ByteWriter } from './wire.js';
import { dh } from './x3dh.js';

const EPHEMERAL_INFO = utf8ToBytes('E2EE v1 SealedSender ephemeral');
const STATIC_INFO = utf8ToBytes('E2EE v1 SealedSender static');
const STATIC_PURPOSE = 'E2EE v1 SealedSender static key';
const CONTENT_PURPOSE = 'E2EE v1 SealedSender content';

function ephemeralLayer(dhOutput: Uint8Array, recipient: Uint8Array, ephemeral: Uint8Array) {
  const out = hkdf(sha256, dhOutput, concatBytes(recipient, ephemeral), EPHEMERAL_INFO, 64);
  return { chainKey: out.subarray(0, 32), layerKey: out.subarray(32) };
}

const staticLayerKey = (dhOutput: Uint8Array, chainKey: Uint8Array, sealedStatic: Uint8Array) =>
  hkdf(sha256, dhOutput, concatBytes(chainKey, sealedStatic), STATIC_INFO, 32);

/** Seals `message` (a direct-session ciphertext) from `sender` to the identity key `recipient`. */
export function sealMessage(
  sender: KeyPair,
  certificate: SenderCertificate,
  recipient: Uint8Array,
  message: Uint8Array,
): Uint8Array {
  const ephemeral = newX25519Pair();
  const layer1 = ephemeralLayer(dh(ephemeral.secretKey, recipient), recipient, ephemeral.publicKey);
  const sealedStatic = aeadSeal(
    layer1.layerKey,
    STATIC_PURPOSE,
    sender.publicKey,
    concatBytes(ephemeral.publicKey, recipient),
  );
  const content = new ByteWriter()
    .sized(certificate.certificate)
    .sized(certificate.signature)
    .text(certificate.keyId)
    .fixed(message)
    .bytes();
  const sealedContent = aeadSeal(
    staticLayerKey(dh(sender.secretKey, recipient), layer1.chainKey, sealedStatic),
    CONTENT_PURPOSE,
    content,
    concatBytes(sender.publicKey, recipient),
  );
  return envelope(MessageType.Sealed)
    .fixed(ephemeral.publicKey)
    .sized(sealedStatic)
    .fixed(sealedContent)
    .bytes();
}

/**
 * Opens a sealed envelope addressed to `recipient`: the sender's certified address, identity key
 * and the inner message. Throws unless both layers authenticate and a certificate signed by a
 * pinned key, valid `now`, names the identity key that sealed it.
 */
export function openSealedMessage(
  recipient: KeyPair,
  payload: Uint8Array,
  pinned: readonly TrustRootKey[],
  now: Date,
): { sender: string; senderIdentityKey: Uint8Array; message: Uint8Array } {
  const { reader } = openEnvelope(payload, MessageType.Sealed);
  const ephemeralKey = reader.fixed(32);
  const sealedStatic = reader.sized();
  const sealedContent = reader.rest();
  const layer1 = ephemeralLayer(
    dh(recipient.secretKey, ephemeralKey),
    recipient.publicKey,
    ephemeralKey,
  );
  const senderIdentityKey = aeadOpen(
    layer1.layerKey,
    STATIC_PURPOSE,
    sealedStatic,
    concatBytes(ephemeralKey, recipient.publicKey),
  );
  const content = new ByteReader(
    aeadOpen(
      staticLayerKey(dh(recipient.secretKey, senderIdentityKey), layer1.chainKey, sealedStatic),
      CONTENT_PURPOSE,
      sealedContent,
      concatBytes(senderIdentityKey, recipient.publicKey),
    ),
  );
  const certificate: SenderCertificate = {
    certificate: content.sized(),
    signature: content.sized(),
    keyId: content.text(),
  };
  const certified = verifySenderCertificate(certificate, pinned, now);
  if (!certifies(certified, senderIdentityKey))
    throw new E2eeError('INVALID_CERTIFICATE', 'the certificate names another identity key');
  return { sender: certified.address, senderIdentityKey, message: content.rest() };
}
