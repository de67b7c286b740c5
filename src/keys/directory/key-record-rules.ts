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
 *
 * A contract wallet's binding is checked on its chain at the block the publishing server
 * recorded (bundle-verification.ts): `check` then answers a promise, and the directory's
 * validation waits for it. A node with no endpoint for that chain refuses such a record, so a
 * forged contract binding injected by a peer is never taken on trust. EOA records stay on the
 * synchronous path (`verify`).
 */
import { createHash } from 'node:crypto';
import type { RecordRules } from '../../platform/dht/record-directory.js';
import { checkSignedBundle } from '../bundle/bundle-verification.js';
import type { BindingSignatures, BundleCheck } from '../bundle/bundle-verification.js';
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
    /** Identity's wallet signatures with the chains' verifier; undefined: EOA bindings only. */
    private readonly signatures?: BindingSignatures,
  ) {}

  /**
   * The verified bundle in a directory record for `address`; throws InvalidKeyRecordError
   * otherwise, also for a contract binding it has not verified yet (use `check` for those).
   */
  verify(address: string, value: Uint8Array): SignedBundle {
    const checked = this.check(address, value);
    if (checked instanceof Promise) {
      void checked.catch(() => undefined);
      throw new InvalidKeyRecordError('a contract binding is verified on chain: use check()');
    }
    return checked;
  }

  /**
   * `verify` for every record: synchronous for EOA bindings and remembered records, a promise
   * for a contract binding checked on chain (rejected with InvalidKeyRecordError, or
   * DependencyUnavailableError when the chain could not answer).
   */
  check(address: string, value: Uint8Array): SignedBundle | Promise<SignedBundle> {
    const id = `${address}:${createHash('sha256').update(value).digest('base64')}`;
    const known = this.verified.get(id);
    if (known) {
      this.verified.delete(id);
      this.verified.set(id, known);
      return known;
    }
    const bundle = decodeSignedBundle(value);
    if (!bundle) throw new InvalidKeyRecordError('not a key bundle record');
    if (bundle.address !== address) {
      throw new InvalidKeyRecordError('the record is for another address');
    }
    const check = checkSignedBundle(this.serviceName, bundle, this.signatures);
    if (!(check instanceof Promise)) return this.remember(id, bundle, check);
    return check.then((result) => this.remember(id, bundle, result));
  }

  /** The rules the directory applies to every record of the namespace. */
  rules(): RecordRules {
    return {
      validate: (address, value) => {
        const checked = this.check(address, value);
        return checked instanceof Promise ? checked.then(() => undefined) : undefined;
      },
      // The directory selects among records it has validated (kad-dht validates what peers
      // return before selecting): an invalid one ranks last, a contract binding whose chain
      // check is not remembered yet is ranked by its signed timestamps.
      select: (address, values) => {
        const versions = values.map((value) => this.versionOf(address, value));
        return versions.reduce(
          (best, version, index) => (version > (versions[best] as string) ? index : best),
          0,
        );
      },
    };
  }

  private versionOf(address: string, value: Uint8Array): string {
    try {
      const checked = this.check(address, value);
      if (!(checked instanceof Promise)) return bundleVersion(checked);
      void checked.catch(() => undefined);
      const bundle = decodeSignedBundle(value);
      return bundle ? bundleVersion(bundle) : '';
    } catch {
      return '';
    }
  }

  private remember(id: string, bundle: SignedBundle, check: BundleCheck): SignedBundle {
    if (!check.ok) throw new InvalidKeyRecordError(check.detail);
    if (this.verified.size >= this.capacity) {
      this.verified.delete(this.verified.keys().next().value as string);
    }
    this.verified.set(id, bundle);
    return bundle;
  }
}
