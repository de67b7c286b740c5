/**
 * GetKeyBundle: the bundle as the key directory (DHT) serves it, checked before it is served,
 * with at most one one-time prekey taken atomically from the store.
 *
 * No valid record in the directory is either "nothing published" (404) or "the directory is
 * away or only holds forgeries" (503): the store, which holds the durable copy of every
 * published bundle, tells which. The store's copy itself is never served in place of the
 * directory's: a fetch is answered from the directory, as the spec requires.
 *
 * A record that has not changed is not read from the DHT again: the store's current bundle is
 * read (one lookup by id, alongside the retired-wallet one) and, while it is byte for byte the
 * record this node last read from the directory and verified, that verified copy is served
 * (directory/verified-copies.ts). A publish is stored before it is acknowledged, so a replaced
 * bundle stops matching at once and is never served after its replacement was acknowledged.
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
import type { VerifiedDirectoryCopies } from './directory/verified-copies.js';
import type { FetchPhase, KeysMetrics } from './keys-metrics.js';

export interface FetchBundleDependencies {
  readonly verifier: KeyRecordVerifier;
  readonly directory: RecordDirectory;
  readonly bundles: KeyBundleRepository;
  readonly prekeys: OneTimePreKeys;
  /** Directory records this node verified, served again while they are the store's current bundle. */
  readonly verifiedCopies: VerifiedDirectoryCopies;
  readonly metrics: KeysMetrics;
  /** True when the address's account was deleted or moved to another wallet (identity's retired wallets). */
  readonly isRetired: (address: string) => Promise<boolean>;
}

export async function fetchKeyBundle(
  deps: FetchBundleDependencies,
  address: string,
): Promise<{ bundle: SignedBundle; oneTimePreKeys: OneTimePreKey[] }> {
  const timed = timer(deps.metrics);
  const [current, retired] = await Promise.all([
    timed('current_record', () => deps.bundles.currentRecord(address)),
    deps.isRetired(address),
  ]);
  if (retired) {
    deps.metrics.fetches.inc({ outcome: 'not_found' });
    throw notFoundWithMessage('No key bundle is published for this address');
  }
  const bundle =
    (current && deps.verifiedCopies.matching(address, current)) ??
    (await readDirectory(deps, address, timed));
  if (!bundle) {
    deps.metrics.fetches.inc({ outcome: current ? 'unavailable' : 'not_found' });
    if (current) throw unavailable('Key bundle lookup unavailable: retry later');
    throw notFoundWithMessage('No key bundle is published for this address');
  }
  const prekey = await timed('prekey_take', () => deps.prekeys.take(address));
  deps.metrics.fetches.inc({ outcome: 'served' });
  return { bundle, oneTimePreKeys: prekey ? [prekey] : [] };
}

/** The directory's current record for `address`, verified and remembered; undefined when it has no valid one. */
async function readDirectory(
  deps: FetchBundleDependencies,
  address: string,
  timed: ReturnType<typeof timer>,
): Promise<SignedBundle | undefined> {
  const record = await timed('directory_read', () => deps.directory.get(address));
  if (!record) return undefined;
  const bundle = await timed('verification', () =>
    verifiedOrUndefined(deps.verifier, address, record),
  );
  if (bundle) deps.verifiedCopies.remember(address, record, bundle);
  return bundle;
}

async function verifiedOrUndefined(
  verifier: KeyRecordVerifier,
  address: string,
  record: Uint8Array,
): Promise<SignedBundle | undefined> {
  try {
    return await verifier.check(address, record);
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
