/**
 * Where message content is made and opened: the SDK's messaging code sends only what a
 * `MessageCipher` returns and hands it only what the service delivered, so the service stores and
 * relays ciphertext it cannot read. The end-to-end-encryption module (`client/src/crypto/`, X3DH,
 * Double Ratchet, sender keys) implements it.
 */
export interface MessageCipher {
  /** The `ciphertext` of a direct message carrying `plaintext` to `peer` (a wallet address). */
  encryptDirect(peer: string, plaintext: Uint8Array): Promise<Uint8Array>;
  /**
   * Opens a direct message from `sender`. Resolves with `null` for a message that carried only
   * protocol state (for example a group sender-key distribution), which the application does not
   * show; rejects for a ciphertext that fails authentication.
   */
  decryptDirect(sender: string, ciphertext: Uint8Array): Promise<Uint8Array | null>;
  /**
   * The `ciphertext` of a group message; first distributes the caller's sender key, over 1:1
   * sessions, to any of `members` that does not have its current one.
   */
  encryptGroup(
    groupId: string,
    members: readonly string[],
    plaintext: Uint8Array,
  ): Promise<Uint8Array>;
  /** Opens a group message from `sender`; rejects for one that fails authentication. */
  decryptGroup(groupId: string, sender: string, ciphertext: Uint8Array): Promise<Uint8Array>;
}
