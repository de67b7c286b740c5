/**
 * The Ed25519 keys of message franking: the current one tags every franked message as it is
 * accepted, and it and the former keys (FRANKING_VERIFICATION_KEYS) verify tags when a message
 * is reported. Rotation is the JWT keys' (identity/tokens/key-ring.ts): configure a new
 * FRANKING_SIGNING_KEY and list the previous public key among the verification keys for as long
 * as its messages may be reported. All of them are published (GetFrankingKeys) for clients.
 */
import { createPublicKey, sign, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import type { ModerationSettings } from '../../platform/config/settings.js';
import { loadEd25519SigningKey } from '../../relay/certificates/certificate-signing-key.js';
import type { CertificateSigningKey } from '../../relay/certificates/certificate-signing-key.js';
import type { FrankingBinding, FrankingTag } from '../../messaging/messages/send-admission.js';
import { frankingPayload } from './franking-payload.js';

export interface PublishedFrankingKey {
  readonly keyId: string;
  /** Raw 32-byte public key, base64. */
  readonly publicKey: string;
  readonly current: boolean;
}

/** The DER prefix of an Ed25519 SubjectPublicKeyInfo, before the raw 32 bytes. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export class FrankingKeys {
  private readonly verifying = new Map<string, KeyObject>();

  constructor(
    private readonly signing: CertificateSigningKey,
    former: readonly { keyId: string; publicKey: string }[],
  ) {
    this.verifying.set(signing.keyId, createPublicKey(signing.privateKey));
    for (const key of former) this.verifying.set(key.keyId, publicKeyOf(key.publicKey));
    this.published = [
      { keyId: signing.keyId, publicKey: signing.publicKey, current: true },
      ...former
        .filter((key) => key.keyId !== signing.keyId)
        .map((key) => ({ ...key, current: false })),
    ];
  }

  /** The current key first, then the former ones. */
  readonly published: readonly PublishedFrankingKey[];

  tag(binding: FrankingBinding): FrankingTag {
    const keyId = this.signing.keyId;
    const tag = sign(null, frankingPayload(keyId, binding), this.signing.privateKey);
    return { tag, keyId };
  }

  /** Whether `tag` is a tag by key `keyId` (current or former) over the binding. */
  verify(binding: FrankingBinding, keyId: string, tag: Uint8Array): boolean {
    const key = this.verifying.get(keyId);
    return key !== undefined && verify(null, frankingPayload(keyId, binding), key, tag);
  }
}

export async function loadFrankingKeys(
  settings: ModerationSettings,
  dataDir: string,
): Promise<FrankingKeys> {
  const signing = await loadEd25519SigningKey(
    {
      pem: settings.frankingSigningKey,
      keyId: settings.frankingKeyId,
      fileName: 'franking-key.pem',
      setting: 'FRANKING_SIGNING_KEY',
    },
    dataDir,
  );
  return new FrankingKeys(signing, parseVerificationKeys(settings.frankingVerificationKeys));
}

/** FRANKING_VERIFICATION_KEYS: `<key id>=<base64 raw public key>`, comma-separated. */
export function parseVerificationKeys(
  text: string | undefined,
): { keyId: string; publicKey: string }[] {
  if (text === undefined || text.trim() === '') return [];
  return text.split(',').map((entry) => {
    const at = entry.indexOf('=');
    const keyId = entry.slice(0, at).trim();
    const publicKey = entry.slice(at + 1).trim();
    if (at <= 0 || Buffer.from(publicKey, 'base64').length !== 32)
      throw new Error(
        'FRANKING_VERIFICATION_KEYS must be comma-separated <key id>=<base64 Ed25519 public key>',
      );
    publicKeyOf(publicKey);
    return { keyId, publicKey };
  });
}

function publicKeyOf(raw: string): KeyObject {
  return createPublicKey({
    key: Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(raw, 'base64')]),
    format: 'der',
    type: 'spki',
  });
}
