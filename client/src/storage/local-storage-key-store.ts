/**
 * A `KeyStore` (client/src/crypto/key-store.ts) over the browser's `localStorage`, one namespace
 * per wallet address, so that a reload (or the next visit) opens messages with the keys and
 * sessions the device already has. `localStorage` writes are synchronous: a `set` that resolved
 * is kept. Anyone who can run script on the page's origin can read these secrets: an XSS on the
 * origin is a key compromise, as with any in-browser key storage.
 */
import type { KeyStore } from '../crypto/key-store.js';

export class LocalStorageKeyStore implements KeyStore {
  private readonly prefix: string;

  constructor(
    /** The wallet whose keys these are (any case). */
    address: string,
    /** Distinguishes this application's records from others on the same origin. */
    namespace = 'e2ee',
    private readonly storage: Storage = globalThis.localStorage,
  ) {
    this.prefix = `${namespace}:${address.toLowerCase()}:`;
  }

  async get(key: string): Promise<string | undefined> {
    return this.storage.getItem(this.prefix + key) ?? undefined;
  }

  async set(key: string, value: string): Promise<void> {
    this.storage.setItem(this.prefix + key, value);
  }

  async delete(key: string): Promise<void> {
    this.storage.removeItem(this.prefix + key);
  }
}
