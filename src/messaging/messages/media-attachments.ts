/**
 * What sending needs from the media area, declared here because media depends on messaging's
 * conversations and not the other way round: attaching an upload to a message (checked and
 * referenced before the message is written) and ending that reference when the message stops
 * showing it.
 */

/** What the message records about its attachment. */
export interface AttachedMedia {
  readonly size: number;
  readonly sha256: string;
  readonly contentType: string;
}

export interface MessageReference {
  readonly messageId: string;
  readonly conversationId: string;
  /** The message's expiry; null when it does not disappear. */
  readonly until: Date | null;
  /** False for a message withheld from its recipient: only the sender may then download. */
  readonly grantsAccess: boolean;
}

export interface MediaAttachments {
  /**
   * 404 when `mediaId` is not an upload of `sender`, 400 when it is of another kind than
   * `kind`, 410 when it was deleted; else records the reference (once per message, so a
   * retried send may attach again) and answers what the message carries about the media.
   */
  attach(
    sender: string,
    mediaId: string,
    kind: string,
    reference: MessageReference,
  ): Promise<AttachedMedia>;
  /** The message stops referencing the media at `at` (a view-once message opened). */
  endReference(mediaId: string, messageId: string, at: Date): Promise<void>;
}
