/**
 * The keys area's rules for its records in the key directory (namespace `e2ee-keys`, key: the
 * owner's lowercase address). Every DHT node applies them to what it is sent and to what it
 * reads, so a record that is not the owner's, or whose signatures fail, is never stored by a
 * node nor chosen by a reader; of several valid records the newest (bundleVersion) wins.
 *
 * A record is checked each time it is handled (a DHT read checks what it finds, the fetch checks
 * what it serves), and the wallet binding's secp256k1 recovery is the costliest step. A
 * record's validity depends on its bytes and its key only, so the verifier remembers the
 * records it has verified (by SHA-256 of the bytes, a bounded number, least recently used
 * forgotten first) and checks each distinct record once.
 */
import { createHash } from 'node:crypto';
import type { RecordRules } from '../../platform/dht/record-directory.js';
import { checkSignedBundle } from '../bundle/bundle-verification.js';
import { bundleVersion, decodeSignedBundle } from '../bundle/signed-bundle.js';
import type { SignedBundle } from '../bundle/signed-bundle.js';

export const KEY_RECORD_NAMESPACE = 'e2ee-keys';
const REMEMBERED_RECORDS = 10_000;

export class InvalidKeyRecordError extends Error {}

export class KeyRecordVerifier {
  private readonly verified = new Map<string, SignedBundle>();

  constructor(
    private readonly serviceName: string,
    private readonly capacity = REMEMBERED_RECORDS,
  ) {}

  /** The verified bundle in a directory record for `address`; throws InvalidKeyRecordError otherwise. */
  verify(address: string, value: Uint8Array): SignedBundle {
    const id = `${address}:${createHash('sha256').update(value).digest('base64')}`;
    const known = this.verified.get(id);
    if (known) {
      this.verified.delete(id);
      this.verified.set(id, known);
      return known;
    }
    const bundle = this.check(address, value);
    if (this.verified.size >= this.capacity)
      this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(id, bundle);
    return bundle;
  }

  /** The rules the directory applies to every record of the namespace. */
  rules(): RecordRules {
    return {
      validate: (address, value) => {
        this.verify(address, value);
      },
      select: (address, values) => {
        const versions = values.map((value) => bundleVersion(this.verify(address, value)));
        return versions.reduce(
          (best, version, index) => (version > (versions[best] as string) ? index : best),
          0,
        );
      },
    };
  }

  private check(address: string, value: Uint8Array): SignedBundle {
    const bundle = decodeSignedBundle(value);
    if (!bundle) throw new InvalidKeyRecordError('not a key bundle record');
    if (bundle.address !== address)
      throw new InvalidKeyRecordError('the record is for another address');
    const check = checkSignedBundle(this.serviceName, bundle);
    if (!check.ok) throw new InvalidKeyRecordError(check.detail);
    return bundle;
  }
}
