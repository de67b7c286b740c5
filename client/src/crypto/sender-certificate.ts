/**
 * Sender certificates of relay.proto: the service's Ed25519 signature over the protobuf bytes of
 * SenderCertificateData, checked against the trust-root keys the client pins (never against a
 * key the service hands out at run time), with the certificate's validity window.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { equalBytes, fromBase64 } from './bytes.js';
import { E2eeError } from './e2ee-error.js';
import { protobufStrings } from './protobuf-fields.js';

/** A pinned trust-root key, as `GET /relay/trust-root` lists it (TrustRootKey). */
export interface TrustRootKey {
  key_id: string;
  public_key: string;
}

/** A certificate as issued (`POST /relay/sender-cert`), embedded unchanged in sealed envelopes. */
export interface SenderCertificate {
  certificate: Uint8Array;
  signature: Uint8Array;
  keyId: string;
}

/** Who a verified certificate vouches for. */
export interface CertifiedSender {
  address: string;
  identityKey: Uint8Array;
  ed25519PublicKey: Uint8Array;
  expiresAt: Date;
}

// SenderCertificateData's field numbers (relay.proto).
const SENDER_ADDRESS = 1;
const IDENTITY_KEY = 2;
const ED25519_PUBLIC_KEY = 3;
const KEY_ID = 4;
const ISSUED_AT = 5;
const EXPIRES_AT = 6;

const invalid = (why: string) => new E2eeError('INVALID_CERTIFICATE', `sender certificate: ${why}`);

/** An X25519 key as published: 32 raw bytes, or 33 with Signal's 0x05 prefix. */
const rawX25519 = (bytes: Uint8Array) =>
  bytes.length === 33 && bytes[0] === 0x05 ? bytes.subarray(1) : bytes;

export function verifySenderCertificate(
  certificate: SenderCertificate,
  pinned: readonly TrustRootKey[],
  now: Date,
): CertifiedSender {
  const root = pinned.find((key) => key.key_id === certificate.keyId);
  if (!root) throw invalid(`no pinned key ${certificate.keyId}`);
  if (!ed25519.verify(certificate.signature, certificate.certificate, fromBase64(root.public_key)))
    throw invalid('the signature does not verify');
  const fields = protobufStrings(certificate.certificate);
  const field = (number: number) => fields.get(number) ?? '';
  if (field(KEY_ID) !== certificate.keyId) throw invalid('signed under another key id');
  const issuedAt = new Date(field(ISSUED_AT));
  const expiresAt = new Date(field(EXPIRES_AT));
  if (!(issuedAt.getTime() <= now.getTime() && now.getTime() < expiresAt.getTime()))
    throw invalid('not valid at this time');
  return {
    address: field(SENDER_ADDRESS).toLowerCase(),
    identityKey: rawX25519(fromBase64(field(IDENTITY_KEY))),
    ed25519PublicKey: fromBase64(field(ED25519_PUBLIC_KEY)),
    expiresAt,
  };
}

/** Whether `identityKey` is the one `sender` vouches for. */
export const certifies = (sender: CertifiedSender, identityKey: Uint8Array) =>
  equalBytes(sender.identityKey, identityKey);
