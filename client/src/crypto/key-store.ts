/**
 * Where the protocol's secrets and session state live: a string key-value store the platform
 * provides (in memory for Node and tests; IndexedDB or localStorage in a browser). Every record
 * is JSON text, so any store that keeps strings can hold it and a device's state can be exported.
 *
 * Each operation writes its new state before it returns its result, so a message is never shown
 * or sent from a state that was not kept. A store must keep what `set` wrote once it resolved.
 */
import { fromBase64, toBase64 } from './bytes.js';

export interface KeyStore {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
}

/** A KeyStore in this process's memory: for Node services and tests; lost when the process ends. */
export class MemoryKeyStore implements KeyStore {
  private readonly records = new Map<string, string>();

  async get(key: string): Promise<string | undefined> {
    return this.records.get(key);
  }

  async set(key: string, value: string): Promise<void> {
    this.records.set(key, value);
  }

  async delete(key: string): Promise<void> {
    this.records.delete(key);
  }

  /** Every record as stored: what an attacker who seized this device would read. */
  snapshot(): ReadonlyMap<string, string> {
    return new Map(this.records);
  }
}

// Byte arrays are written as {"$b64": "..."}: state objects keep Uint8Array members in memory.
const BYTES = '$b64';

export function serializeState(state: unknown): string {
  return JSON.stringify(state, (_key, value: unknown) =>
    value instanceof Uint8Array ? { [BYTES]: toBase64(value) } : value,
  );
}

export function deserializeState<T>(text: string): T {
  return JSON.parse(text, (_key, value: unknown) => {
    if (value !== null && typeof value === 'object' && BYTES in value)
      return fromBase64((value as Record<string, string>)[BYTES]!);
    return value;
  }) as T;
}

/** Typed records over a KeyStore, one namespace per kind of state. */
export class StateRecords {
  constructor(private readonly store: KeyStore) {}

  async load<T>(key: string): Promise<T | undefined> {
    const text = await this.store.get(key);
    return text === undefined ? undefined : deserializeState<T>(text);
  }

  save(key: string, state: unknown): Promise<void> {
    return this.store.set(key, serializeState(state));
  }

  delete(key: string): Promise<void> {
    return this.store.delete(key);
  }
}
