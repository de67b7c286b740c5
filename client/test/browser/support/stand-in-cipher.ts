/**
 * Bundled into the browser tests' build of the web app in place of client/app/cipher.ts until
 * the end-to-end encryption module (client/src/crypto/) is merged; never part of `npm run build`.
 * AES-256-GCM (WebCrypto) under a key derived from the two wallets of a direct chat or from the
 * group id: real ciphertext, so the tests can show the service stores only that.
 */
import type { MessageCipher } from '../../../src/message-cipher.js';

const encoder = new TextEncoder();

async function keyOf(label: string): Promise<CryptoKey> {
  const raw = await crypto.subtle.digest('SHA-256', encoder.encode(`stand-in-cipher:${label}`));
  return crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt']);
}

async function seal(label: string, plaintext: Uint8Array): Promise<Uint8Array> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const body = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv },
    await keyOf(label),
    plaintext as Uint8Array<ArrayBuffer>,
  );
  const sealed = new Uint8Array(12 + body.byteLength);
  sealed.set(iv);
  sealed.set(new Uint8Array(body), 12);
  return sealed;
}

async function open(label: string, sealed: Uint8Array): Promise<Uint8Array> {
  const plaintext = await crypto.subtle.decrypt(
    { name: 'AES-GCM', iv: sealed.slice(0, 12) },
    await keyOf(label),
    sealed.slice(12),
  );
  return new Uint8Array(plaintext);
}

export function openCipher(_session: unknown, self: string): Promise<MessageCipher> {
  const pair = (peer: string) => [self, peer.toLowerCase()].sort().join(':');
  return Promise.resolve({
    encryptDirect: (peer, plaintext) => seal(pair(peer), plaintext),
    decryptDirect: (sender, ciphertext) => open(pair(sender), ciphertext),
    encryptGroup: (groupId, _members, plaintext) => seal(groupId, plaintext),
    decryptGroup: (groupId, _sender, ciphertext) => open(groupId, ciphertext),
  });
}
