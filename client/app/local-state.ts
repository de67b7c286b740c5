/**
 * What the app keeps in this browser (localStorage): the embedded wallet's key, and per account
 * the realtime position and the opened messages. The session itself is the service's HttpOnly
 * cookie, which no script here can read.
 */
import type { MessageContent, PlaintextStore, StreamPosition } from '../src/index.js';

const PREFIX = 'messaging-app:';

const read = <T>(key: string): T | undefined => {
  const text = localStorage.getItem(PREFIX + key);
  return text === null ? undefined : (JSON.parse(text) as T);
};
const write = (key: string, value: unknown) =>
  localStorage.setItem(PREFIX + key, JSON.stringify(value));

export const embeddedWalletKey = () => read<`0x${string}`>('wallet-key');
export const saveEmbeddedWalletKey = (key: `0x${string}`) => write('wallet-key', key);

export const savedPosition = (account: string) => read<StreamPosition>(`position:${account}`);
export const savePosition = (account: string, position: StreamPosition) =>
  write(`position:${account}`, position);

/** Opened messages of `account`, by message id, so a reload shows them without decrypting again. */
export function localPlaintexts(account: string): PlaintextStore {
  const key = (messageId: string) => `plaintext:${account}:${messageId}`;
  return {
    get: async (messageId) => read<MessageContent | null>(key(messageId)),
    put: async (messageId, content) => write(key(messageId), content),
  };
}
