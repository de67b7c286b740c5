/**
 * The app's `MessageCipher`: the SDK's end-to-end encryption (client/src/crypto/, X3DH, Double
 * Ratchet, sender keys), set up for the signed-in account (its keys published on first use).
 * That module is built in parallel and not merged yet: until it is, this build cannot encrypt and
 * says so, rather than sending anything in a weaker form.
 */
import type { AuthorizedSession, MessageCipher } from '../src/index.js';

export function openCipher(_session: AuthorizedSession, _self: string): Promise<MessageCipher> {
  return Promise.reject(
    new Error('end-to-end encryption is not part of this build yet: messages cannot be sent'),
  );
}
