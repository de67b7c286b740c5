/**
 * The keys area's rules for its records in the key directory (namespace `e2ee-keys`, key: the
 * owner's lowercase address). Every DHT node applies them to what it is sent and to what it
 * reads, so a record that is not the owner's, or whose signatures fail, is never stored by a
 * node nor chosen by a reader; of several valid records the newest (bundleVersion) wins.
 */
import type { RecordRules } from '../../platform/dht/record-directory.js';
import { checkSignedBundle } from '../bundle/bundle-verification.js';
import { bundleVersion, decodeSignedBundle } from '../bundle/signed-bundle.js';
import type { SignedBundle } from '../bundle/signed-bundle.js';

export const KEY_RECORD_NAMESPACE = 'e2ee-keys';

export class InvalidKeyRecordError extends Error {}

/** The verified bundle in a directory record for `address`; throws InvalidKeyRecordError otherwise. */
export function verifiedKeyRecord(serviceName: string, address: string, value: Uint8Array): SignedBundle {
  const bundle = decodeSignedBundle(value);
  if (!bundle) throw new InvalidKeyRecordError('not a key bundle record');
  if (bundle.address !== address) throw new InvalidKeyRecordError('the record is for another address');
  const check = checkSignedBundle(serviceName, bundle);
  if (!check.ok) throw new InvalidKeyRecordError(check.detail);
  return bundle;
}

export function keyRecordRules(serviceName: string): RecordRules {
  return {
    validate(address, value) {
      verifiedKeyRecord(serviceName, address, value);
    },
    select(_address, values) {
      // Called with validated records only, so each decodes.
      const versions = values.map((value) => bundleVersion(decodeSignedBundle(value) as SignedBundle));
      return versions.reduce((best, version, index) => (version > (versions[best] as string) ? index : best), 0);
    },
  };
}
