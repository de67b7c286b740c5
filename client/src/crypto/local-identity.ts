/**
 * This device's long-lived keys: the Ed25519 key the wallet binds once, the X25519 identity key,
 * the registration id, the signed prekeys (the current one and the one before, so that a session
 * started just before a rotation still opens) and the one-time prekeys' secrets, each kept until
 * the prekey message that uses it has been opened.
 */
import { ed25519, x25519 } from '@noble/curves/ed25519.js';
import { randomBytes } from './bytes.js';
import type { StateRecords } from './key-store.js';

export interface KeyPair {
  secretKey: Uint8Array;
  publicKey: Uint8Array;
}

export interface SignedPreKeyRecord extends KeyPair {
  keyId: number;
  signature: Uint8Array;
  timestamp: number;
}

interface IdentityRecord {
  ed25519: KeyPair;
  identity: KeyPair;
  registrationId: number;
  walletBinding?: { signature: string; timestamp: number };
  /** Newest first; at most SIGNED_PREKEYS_KEPT. */
  signedPreKeys: SignedPreKeyRecord[];
  nextPreKeyId: number;
}

const IDENTITY = 'identity';
const oneTimeKey = (keyId: number) => `one-time-prekey:${keyId}`;
const SIGNED_PREKEYS_KEPT = 2;
/** keys.proto: prekey ids are 1 to 16777215. */
const MAX_PREKEY_ID = 0xffffff;

export const newX25519Pair = (): KeyPair => {
  const secretKey = x25519.utils.randomSecretKey();
  return { secretKey, publicKey: x25519.getPublicKey(secretKey) };
};

const randomId = (max: number) => 1 + (new DataView(randomBytes(4).buffer).getUint32(0) % max);

export class LocalIdentity {
  private constructor(
    private readonly records: StateRecords,
    private record: IdentityRecord,
  ) {}

  /** The device's identity from the store, made (once, at install) when there is none. */
  static async loadOrCreate(records: StateRecords): Promise<LocalIdentity> {
    const stored = await records.load<IdentityRecord>(IDENTITY);
    if (stored) return new LocalIdentity(records, stored);
    const edSecret = ed25519.utils.randomSecretKey();
    const record: IdentityRecord = {
      ed25519: { secretKey: edSecret, publicKey: ed25519.getPublicKey(edSecret) },
      identity: newX25519Pair(),
      registrationId: randomId(16380),
      signedPreKeys: [],
      nextPreKeyId: randomId(Math.floor(MAX_PREKEY_ID / 2)),
    };
    await records.save(IDENTITY, record);
    return new LocalIdentity(records, record);
  }

  get identityKey(): KeyPair {
    return this.record.identity;
  }

  get ed25519PublicKey(): Uint8Array {
    return this.record.ed25519.publicKey;
  }

  get registrationId(): number {
    return this.record.registrationId;
  }

  get walletBinding(): { signature: string; timestamp: number } | undefined {
    return this.record.walletBinding;
  }

  async setWalletBinding(binding: { signature: string; timestamp: number }): Promise<void> {
    this.record = { ...this.record, walletBinding: binding };
    await this.records.save(IDENTITY, this.record);
  }

  signEd25519(data: Uint8Array): Uint8Array {
    return ed25519.sign(data, this.record.ed25519.secretKey);
  }

  /** Makes a new signed prekey and keeps the previous one for messages already under way. */
  async rotateSignedPreKey(): Promise<SignedPreKeyRecord> {
    const pair = newX25519Pair();
    const signedPreKey: SignedPreKeyRecord = {
      ...pair,
      keyId: this.takePreKeyIds(1),
      signature: this.signEd25519(pair.publicKey),
      timestamp: Date.now(),
    };
    this.record = {
      ...this.record,
      signedPreKeys: [signedPreKey, ...this.record.signedPreKeys].slice(0, SIGNED_PREKEYS_KEPT),
    };
    await this.records.save(IDENTITY, this.record);
    return signedPreKey;
  }

  signedPreKey(keyId: number): SignedPreKeyRecord | undefined {
    return this.record.signedPreKeys.find((key) => key.keyId === keyId);
  }

  /** `count` new one-time prekeys, their secrets stored before their public halves are returned. */
  async newOneTimePreKeys(count: number): Promise<{ keyId: number; publicKey: Uint8Array }[]> {
    const first = this.takePreKeyIds(count);
    await this.records.save(IDENTITY, this.record);
    const keys = Array.from({ length: count }, (_, i) => ({
      keyId: ((first - 1 + i) % MAX_PREKEY_ID) + 1,
      ...newX25519Pair(),
    }));
    for (const key of keys) await this.records.save(oneTimeKey(key.keyId), key.secretKey);
    return keys.map(({ keyId, publicKey }) => ({ keyId, publicKey }));
  }

  oneTimePreKeySecret(keyId: number): Promise<Uint8Array | undefined> {
    return this.records.load<Uint8Array>(oneTimeKey(keyId));
  }

  /** Deletes a one-time prekey's secret once a session was made with it: it is never used twice. */
  consumeOneTimePreKey(keyId: number): Promise<void> {
    return this.records.delete(oneTimeKey(keyId));
  }

  /** Reserves `count` consecutive prekey ids (wrapping within 1..MAX_PREKEY_ID); returns the first. */
  private takePreKeyIds(count: number): number {
    const first = this.record.nextPreKeyId;
    this.record = {
      ...this.record,
      nextPreKeyId: ((first - 1 + count) % MAX_PREKEY_ID) + 1,
    };
    return first;
  }
}
