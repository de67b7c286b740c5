/**
 * The directory records this node has read and verified, kept so that a fetch does not pay a DHT
 * query for a record that has not changed. A copy is served only while it is byte for byte the
 * store's current bundle: the store is where every acknowledged publish is written before it is
 * acknowledged (publish-bundle.ts), so the moment a replacing bundle is acknowledged the copy no
 * longer matches and the next fetch reads the DHT again. Comparing whole records, not only
 * their versions, also catches a re-publish that keeps the version (the store takes an equal
 * one). Nothing here comes from shared state, so a Redis that comes back empty cannot make a
 * replaced copy look current.
 *
 * Per process and in memory: a restart starts empty, and a node whose store does not hold the
 * bundle (an embedded store on another pod) always reads the DHT.
 */
import { bundleVersion } from '../bundle/signed-bundle.js';
import type { SignedBundle } from '../bundle/signed-bundle.js';

const REMEMBERED_COPIES = 10_000;

interface VerifiedCopy {
  readonly record: Uint8Array;
  readonly bundle: SignedBundle;
}

export class VerifiedDirectoryCopies {
  private readonly copies = new Map<string, VerifiedCopy>();

  constructor(private readonly capacity = REMEMBERED_COPIES) {}

  /** The verified bundle read from the directory for `address` when its record is `current`. */
  matching(address: string, current: Uint8Array): SignedBundle | undefined {
    const copy = this.copies.get(address);
    if (!copy || !sameBytes(copy.record, current)) return undefined;
    // Least recently used first out: refreshed on every use.
    this.copies.delete(address);
    this.copies.set(address, copy);
    return copy.bundle;
  }

  /**
   * Remembers a record read from the directory and verified, in place of the address's last one
   * unless that one is newer: a read may find an older record than the last one (the peers that
   * answered missed the publish), and the newer copy may still be the store's current bundle.
   */
  remember(address: string, record: Uint8Array, bundle: SignedBundle): void {
    const held = this.copies.get(address);
    if (held && bundleVersion(held.bundle) > bundleVersion(bundle)) return;
    this.copies.delete(address);
    if (this.copies.size >= this.capacity)
      this.copies.delete(this.copies.keys().next().value as string);
    this.copies.set(address, { record, bundle });
  }
}

export const sameBytes = (a: Uint8Array, b: Uint8Array) => Buffer.compare(a, b) === 0;
