/**
 * GetKeyBundle: the bundle as the key directory (DHT) serves it, checked before it is served,
 * with at most one one-time prekey taken atomically from the store.
 *
 * No valid record in the directory is either "nothing published" (404) or "the directory is
 * away or only holds forgeries" (503): the store, which holds the durable copy of every
 * published bundle, tells which. The store's copy itself is never served in place of the
 * directory's: a fetch is answered from the directory, as the spec requires.
 *
 * The directory keeps a record up to 48 h after its owner stops republishing it, so the
 * address of a deleted account, or the old address of an account that recovery moved, could
 * still be served a bundle nobody holds the keys of any more. Identity's retired wallets (the
 * store's durable record, written as a deletion or move begins) are read alongside the
 * directory, one lookup by id, and such an address answers 404 as if nothing was published.
 */
import type { RecordDirectory } from '../platform/dht/record-directory.js';
import { notFoundWithMessage, unavailable } from '../platform/errors/api-error.js';
import type { OneTimePreKey } from './store/one-time-prekeys.js';
import type { OneTimePreKeys } from './store/one-time-prekeys.js';
import type { KeyBundleRepository } from './store/key-bundle-repository.js';
import { InvalidKeyRecordError } from './directory/key-record-rules.js';
import type { KeyRecordVerifier } from './directory/key-record-rules.js';
import type { SignedBundle } from './bundle/signed-bundle.js';
import type { FetchPhase, KeysMetrics } from './keys-metrics.js';

export interface FetchBundleDependencies {
  readonly verifier: KeyRecordVerifier;
  readonly directory: RecordDirectory;
  readonly bundles: KeyBundleRepository;
  readonly prekeys: OneTimePreKeys;
  readonly metrics: KeysMetrics;
  /** True when the address's account was deleted or moved to another wallet (identity's retired wallets). */
  readonly isRetired: (address: string) => Promise<boolean>;
}

export async function fetchKeyBundle(
  deps: FetchBundleDependencies,
  address: string,
): Promise<{ bundle: SignedBundle; oneTimePreKeys: OneTimePreKey[] }> {
  const timed = timer(deps.metrics);
  const [record, retired] = await Promise.all([
    timed('directory_read', () => deps.directory.get(address)),
    deps.isRetired(address),
  ]);
  if (retired) {
    deps.metrics.fetches.inc({ outcome: 'not_found' });
    throw notFoundWithMessage('No key bundle is published for this address');
  }
  const bundle =
    record &&
    (await timed('verification', async () => verifiedOrUndefined(deps.verifier, address, record)));
  if (!bundle) {
    const published = await deps.bundles.exists(address);
    deps.metrics.fetches.inc({ outcome: published ? 'unavailable' : 'not_found' });
    if (published) throw unavailable('Key bundle lookup unavailable: retry later');
    throw notFoundWithMessage('No key bundle is published for this address');
  }
  const prekey = await timed('prekey_take', () => deps.prekeys.take(address));
  deps.metrics.fetches.inc({ outcome: 'served' });
  return { bundle, oneTimePreKeys: prekey ? [prekey] : [] };
}

function verifiedOrUndefined(
  verifier: KeyRecordVerifier,
  address: string,
  record: Uint8Array,
): SignedBundle | undefined {
  try {
    return verifier.verify(address, record);
  } catch (error) {
    if (error instanceof InvalidKeyRecordError) return undefined;
    throw error;
  }
}

function timer(metrics: KeysMetrics) {
  return async <T>(phase: FetchPhase, run: () => Promise<T>): Promise<T> => {
    const end = metrics.fetchPhase.startTimer({ phase });
    try {
      return await run();
    } finally {
      end();
    }
  };
}
