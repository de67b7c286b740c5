/**
 * Sender certificates against a controlled clock: valid from issue for exactly 24 hours, as a
 * recipient checks them with independent code (protobufjs, @noble/curves Ed25519); the next
 * certificate, issued after the first expired, is valid again.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadCertificateSigningKey } from '../../src/relay/certificates/certificate-signing-key.js';
import { SenderCertificates } from '../../src/relay/certificates/sender-certificates.js';
import { decodeCertificate, recipientAccepts } from '../support/independent-sender-certificates.js';

const DAY = 24 * 60 * 60 * 1000;
const sender = {
  address: `0x${'ab'.repeat(20)}`,
  identityKey: Buffer.alloc(32, 1).toString('base64'),
  ed25519PublicKey: Buffer.alloc(32, 2).toString('base64'),
};
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

async function certificatesAt(clock: { now: number }, keyId?: string) {
  const pem = generateKeyPairSync('ed25519')
    .privateKey.export({ format: 'pem', type: 'pkcs8' })
    .toString();
  const key = await loadCertificateSigningKey({ signingKey: pem, keyId }, '/nonexistent');
  const certificates = new SenderCertificates(key, () => new Date(clock.now));
  const pinned = certificates
    .trustRoot()
    .map((root) => ({ key_id: root.keyId, algorithm: root.algorithm, public_key: root.publicKey }));
  const issue = () => {
    const issued = certificates.issue(sender);
    return {
      certificate: b64(issued.certificate),
      signature: b64(issued.signature),
      key_id: issued.data.keyId,
    };
  };
  return { issue, pinned };
}

it('is accepted from its issue until 24 hours later, and refused from then on', async () => {
  const clock = { now: Date.parse('2026-11-24T10:00:00.000Z') };
  const { issue, pinned } = await certificatesAt(clock);
  const first = issue();
  expect(decodeCertificate(first.certificate)).toMatchObject({
    sender_address: sender.address,
    issued_at: '2026-11-24T10:00:00.000Z',
    expires_at: '2026-11-25T10:00:00.000Z',
  });
  expect(recipientAccepts(first, pinned, new Date(clock.now))).toBe(true);
  expect(recipientAccepts(first, pinned, new Date(clock.now + DAY - 1))).toBe(true);
  expect(recipientAccepts(first, pinned, new Date(clock.now + DAY))).toBe(false);

  clock.now += DAY + 1;
  const next = issue();
  expect(decodeCertificate(next.certificate).expires_at).toBe('2026-11-26T10:00:00.001Z');
  expect(recipientAccepts(next, pinned, new Date(clock.now))).toBe(true);
});

it('names its key by the RFC 7638 thumbprint unless a key id is configured, and a key made once in DATA_DIR otherwise', async () => {
  const clock = { now: Date.now() };
  const thumbprinted = await certificatesAt(clock);
  expect(thumbprinted.pinned[0]!.key_id).toMatch(/^[A-Za-z0-9_-]{43}$/);
  const named = await certificatesAt(clock, 'sender-2026-11');
  expect(named.issue().key_id).toBe('sender-2026-11');

  const dataDir = mkdtempSync(path.join(tmpdir(), 'sender-key-'));
  try {
    const made = await loadCertificateSigningKey(
      { signingKey: undefined, keyId: undefined },
      dataDir,
    );
    const again = await loadCertificateSigningKey(
      { signingKey: undefined, keyId: undefined },
      dataDir,
    );
    expect(again.keyId).toBe(made.keyId);
    expect(
      readFileSync(path.join(dataDir, 'keys', 'sender-certificate-key.pem'), 'utf8'),
    ).toContain('PRIVATE KEY');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

it('refuses a configured key that is not Ed25519', async () => {
  const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    .privateKey.export({ format: 'pem', type: 'pkcs8' })
    .toString();
  await expect(
    loadCertificateSigningKey({ signingKey: p256, keyId: undefined }, '/nonexistent'),
  ).rejects.toThrow('SENDER_CERT_SIGNING_KEY must be an Ed25519 private key');
});
