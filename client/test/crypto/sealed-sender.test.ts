/**
 * Sealed sender against certificates in the service's format made independently of the SDK:
 * SenderCertificateData encoded with protobufjs from relay.proto, signed with node:crypto's
 * Ed25519. (The interoperation test opens envelopes sealed with the running service's real
 * certificates.)
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { newX25519Pair } from '../../src/crypto/local-identity.js';
import type { KeyPair } from '../../src/crypto/local-identity.js';
import { openSealedMessage, sealMessage } from '../../src/crypto/sealed-sender.js';
import type { SenderCertificate, TrustRootKey } from '../../src/crypto/sender-certificate.js';
import { refusal } from './support/refusal.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

function certificateType(): protobuf.Type {
  const protos = new protobuf.Root();
  const folders: [string, string][] = [
    ['service/', 'proto/'],
    ['google/api/', 'third_party/'],
    ['google/protobuf/', 'node_modules/google-proto-files/'],
  ];
  protos.resolvePath = (_origin, target) => {
    const folder = folders.find(([prefix]) => target.startsWith(prefix));
    return folder ? `${root}${folder[1]}${target}` : target;
  };
  protos.loadSync('service/v1/relay.proto', { keepCase: true });
  return protos.lookupType('service.v1.SenderCertificateData');
}
const CertificateData = certificateType();

const serviceKey = generateKeyPairSync('ed25519');
const KEY_ID = 'test-key-1';
const pinned: TrustRootKey[] = [
  {
    key_id: KEY_ID,
    public_key: Buffer.from(
      serviceKey.publicKey.export({ format: 'jwk' }).x as string,
      'base64url',
    ).toString('base64'),
  },
];
const NOW = new Date('2026-01-02T12:00:00.000Z');

function certificateFor(
  sender: KeyPair,
  overrides: Record<string, string> = {},
  signingKey = serviceKey.privateKey,
): SenderCertificate {
  const data = {
    sender_address: '0xa11ce00000000000000000000000000000000001',
    identity_key: Buffer.from(sender.publicKey).toString('base64'),
    ed25519_public_key: Buffer.alloc(32, 7).toString('base64'),
    key_id: KEY_ID,
    issued_at: '2026-01-02T00:00:00.000Z',
    expires_at: '2026-01-03T00:00:00.000Z',
    ...overrides,
  };
  const certificate = CertificateData.encode(CertificateData.create(data)).finish();
  return {
    certificate,
    signature: new Uint8Array(sign(null, certificate, signingKey)),
    keyId: overrides.key_id ?? KEY_ID,
  };
}

describe('sealed sender', () => {
  const sender = newX25519Pair();
  const recipient = newX25519Pair();
  const inner = new TextEncoder().encode('inner direct message');

  it('opens to the certified sender and the inner message, and hides the sender', () => {
    const payload = sealMessage(sender, certificateFor(sender), recipient.publicKey, inner);
    expect(Buffer.from(payload).includes(Buffer.from(sender.publicKey))).toBe(false);
    expect(Buffer.from(payload).includes(Buffer.from('a11ce'))).toBe(false);
    expect(openSealedMessage(recipient, payload, pinned, NOW)).toEqual({
      sender: '0xa11ce00000000000000000000000000000000001',
      senderIdentityKey: sender.publicKey,
      message: inner,
    });
  });

  it('refuses certificates that are unpinned, forged, expired, not yet valid or for another key', () => {
    const otherService = generateKeyPairSync('ed25519').privateKey;
    const cases: [string, SenderCertificate, Date?][] = [
      ['signed by an unpinned key', certificateFor(sender, {}, otherService)],
      ['naming an unknown key id', certificateFor(sender, { key_id: 'unknown' })],
      ['expired', certificateFor(sender), new Date('2026-01-03T00:00:00.000Z')],
      ['not yet valid', certificateFor(sender), new Date('2026-01-01T23:59:59.000Z')],
      ['for another identity key', certificateFor(newX25519Pair())],
    ];
    for (const [why, certificate, at] of cases) {
      const payload = sealMessage(sender, certificate, recipient.publicKey, inner);
      expect([
        why,
        refusal(() => openSealedMessage(recipient, payload, pinned, at ?? NOW)),
      ]).toEqual([why, 'INVALID_CERTIFICATE']);
    }
    const genuine = certificateFor(sender);
    const altered = { ...genuine, certificate: genuine.certificate.slice() };
    altered.certificate[altered.certificate.length - 2]! ^= 0x01;
    const payload = sealMessage(sender, altered, recipient.publicKey, inner);
    expect(refusal(() => openSealedMessage(recipient, payload, pinned, NOW))).toBe(
      'INVALID_CERTIFICATE',
    );
  });

  it('refuses a tampered envelope and one sealed to someone else', () => {
    const payload = sealMessage(sender, certificateFor(sender), recipient.publicKey, inner);
    for (const position of [2, 40, payload.length - 1]) {
      const tampered = payload.slice();
      tampered[position]! ^= 0x01;
      expect(refusal(() => openSealedMessage(recipient, tampered, pinned, NOW))).not.toBe(
        'accepted',
      );
    }
    expect(refusal(() => openSealedMessage(newX25519Pair(), payload, pinned, NOW))).toBe(
      'AUTHENTICATION_FAILED',
    );
  });
});
