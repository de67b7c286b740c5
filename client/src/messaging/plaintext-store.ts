/**
 * Where opened messages are remembered. End-to-end decryption is single-use (a ratchet deletes
 * a message key once used) and a sender cannot open its own ciphertext, so what was read once
 * must be kept by the client to be shown again after a reload: the application passes a
 * persistent store (the reference app keeps it in `localStorage`); the default keeps it in memory.
 */
import type { MessageContent } from './message-content.js';

export interface PlaintextStore {
  /** The opened content of a message by its server id; `null` for a protocol-only message. */
  get(messageId: string): Promise<MessageContent | null | undefined>;
  put(messageId: string, content: MessageContent | null): Promise<void>;
}

export function memoryPlaintextStore(): PlaintextStore {
  const contents = new Map<string, MessageContent | null>();
  return {
    get: async (messageId) => contents.get(messageId),
    put: async (messageId, content) => void contents.set(messageId, content),
  };
}
