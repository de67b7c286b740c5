/**
 * Why a protocol step refused its input. Every refusal leaves the stored state unchanged, so a
 * forged or damaged message can neither break a session nor be retried into succeeding.
 */
export type E2eeErrorCode =
  /** The bytes are not a message of a known version and type, or are cut short. */
  | 'MALFORMED'
  /** The AEAD tag or a signature did not verify: tampered, forged or for another session. */
  | 'AUTHENTICATION_FAILED'
  /** A message key already used (and deleted): a replay. */
  | 'DUPLICATE_MESSAGE'
  /** The message is further ahead of its chain than MAX_SKIP allows. */
  | 'TOO_MANY_SKIPPED'
  /** No session or sender key to open this message with (yet). */
  | 'NO_SESSION'
  /** A peer's key bundle or identity failed the chain-of-trust check. */
  | 'UNTRUSTED_IDENTITY'
  /** A sealed envelope's sender certificate is not signed by a pinned key, expired or mismatched. */
  | 'INVALID_CERTIFICATE';

export class E2eeError extends Error {
  constructor(
    readonly code: E2eeErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'E2eeError';
  }
}
