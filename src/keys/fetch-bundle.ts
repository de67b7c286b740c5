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
 * Otherwise fetches of one owner share the DHT read in flight, on the same rule
 * (directory/shared-directory-reads.ts).
 *
 * The directory keeps a record up to 48 h after its owner stops republishing it, so the
 * address of a deleted account, or the old address of an account that recovery moved, could
 * still be served a bundle nobody holds the keys of any more. Identity's retired wallets (the
 * store's durable record, written as a deletion or move begins) are read alongside the
 * directory, one lookup by id, and such an address answers 404 as if nothing was published.
 */
import { notFoundWithMessage, unavailable } from '../platform/errors/api-error.js';
import type { OneTimePreKey } from './store/one-time-prekeys.js';
import type { OneTimePreKeys } from './store/one-time-prekeys.js';
import type { KeyBundleRepository } from './store/key-bundle-repository.js';
import type { SignedBundle } from './bundle/signed-bundle.js';
import type { SharedDirectoryReads } from './directory/shared-directory-reads.js';
import type { VerifiedDirectoryCopies } from './directory/verified-copies.js';
import { phaseTimer } from './keys-metrics.js';
import type { KeysMetrics } from './keys-metrics.js';

export interface FetchBundleDependencies {
  readonly bundles: KeyBundleRepository;
  readonly prekeys: OneTimePreKeys;
  /** Directory records this node verified, served again while they are the store's current bundle. */
  readonly verifiedCopies: VerifiedDirectoryCopies;
  /** The DHT read and verification when the copy is not current, one per address in flight. */
  readonly directoryReads: SharedDirectoryReads;
  readonly metrics: KeysMetrics;
  /** True when the address's account was deleted or moved to another wallet (identity's retired wallets). */
  readonly isRetired: (address: string) => Promise<boolean>;
}

export async function fetchKeyBundle(
  deps: FetchBundleDependencies,
  address: string,
): Promise<{ bundle: SignedBundle; oneTimePreKeys: OneTimePreKey[] }> {
  const timed = phaseTimer(deps.metrics);
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
    (await deps.directoryReads.read(address, current, timed))?.bundle;
  if (!bundle) {
    deps.metrics.fetches.inc({ outcome: current ? 'unavailable' : 'not_found' });
    if (current) throw unavailable('Key bundle lookup unavailable: retry later');
    throw notFoundWithMessage('No key bundle is published for this address');
  }
  const prekey = await timed('prekey_take', () => deps.prekeys.take(address));
  deps.metrics.fetches.inc({ outcome: 'served' });
  return { bundle, oneTimePreKeys: prekey ? [prekey] : [] };
}
