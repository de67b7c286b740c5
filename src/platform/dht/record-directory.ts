/**
 * The record directory port: signed records put and got by key, in one namespace. Business code
 * (the keys area) depends only on this; `openRecordDirectory` picks the implementation: a libp2p
 * Kademlia DHT node joined to its peers (kademlia-directory.ts) or, with the DHT off, records
 * kept in this process (local-directory.ts). Both apply the namespace's rules the same way.
 *
 * The directory knows nothing of what a record means: the namespace's owner gives the rules
 * that say whether a record is valid (its owner's signatures) and which of several valid
 * records is current.
 */

export interface RecordRules {
  /** Throws when the record is not valid for the key (a forgery, a malformed value). */
  validate(key: string, value: Uint8Array): void | Promise<void>;
  /** The index of the current record among several valid ones for the key. */
  select(key: string, values: readonly Uint8Array[]): number;
}

export interface ReadOptions {
  /**
   * The record the reader knows to be current (its owner's last acknowledged write, from the
   * reader's durable store): no valid record is newer, so a read may end at the first node's
   * valid copy of it instead of waiting for every node's answer.
   */
  readonly knownCurrent?: Uint8Array;
}

export interface RecordDirectory {
  /**
   * Validates the record with the rules first (a DHT does not validate its own puts), then
   * writes it. Throws `DirectoryUnavailableError` when it could not be written in time.
   */
  put(key: string, value: Uint8Array): Promise<void>;
  /**
   * The current valid record, or undefined when no reachable node has one (including when no
   * node could be reached in time).
   */
  get(key: string, options?: ReadOptions): Promise<Uint8Array | undefined>;
  /**
   * Calls `listener` whenever records should be (re)written: at once when the node has already
   * joined (it has peers, or has none to wait for), and each time it goes from no peers to some
   * (a restart, a healed partition), since peers that were away may lack records.
   */
  onJoined(listener: () => void): void;
  close(): Promise<void>;
}

export class DirectoryUnavailableError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DirectoryUnavailableError';
  }
}
