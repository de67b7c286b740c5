/**
 * A stand-in `MessageCipher` for the SDK's own tests, never shipped: AES-256-GCM (node:crypto)
 * under a key derived from the two wallets of a direct chat, or from the group id. It makes real
 * ciphertext, so the tests can show that the service stores and relays only that, while the
 * SDK's messaging is tested apart from the end-to-end protocol (client/test/crypto/ tests that).
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { MessageCipher } from '../../src/message-cipher.js';

const keyOf = (label: string) => createHash('sha256').update(`test-cipher:${label}`).digest();

function seal(key: Buffer, plaintext: Uint8Array): Uint8Array {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return new Uint8Array(Buffer.concat([iv, cipher.getAuthTag(), body]));
}

function open(key: Buffer, sealed: Uint8Array): Uint8Array {
  const bytes = Buffer.from(sealed);
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return new Uint8Array(Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]));
}

export function sharedKeyCipher(self: string): MessageCipher {
  const pairKey = (peer: string) =>
    keyOf([self.toLowerCase(), peer.toLowerCase()].sort().join(':'));
  return {
    encryptDirect: async (peer, plaintext) => seal(pairKey(peer), plaintext),
    decryptDirect: async (sender, ciphertext) => open(pairKey(sender), ciphertext),
    encryptGroup: async (groupId, _members, plaintext) => seal(keyOf(groupId), plaintext),
    decryptGroup: async (groupId, _sender, ciphertext) => open(keyOf(groupId), ciphertext),
  };
}
