/**
 * A conversation the poll was sent to, as a `poll` message (or channel post) carrying its id.
 * On its own, apart from poll.ts, so the upgrade of old records (legacy-poll-upgrade.ts) builds
 * places without importing the repository that calls it.
 */
export interface PollPlace {
  /** Messaging's conversation id: `dm:<a>:<b>`, `group:<id>` or `channel:<id>`. */
  conversationId: string;
  type: 'direct' | 'group' | 'channel';
  /** The recipient in a direct chat; empty otherwise. */
  peer: string;
  /** The group or channel; empty otherwise. */
  groupId: string;
  channelId: string;
  /** The poll message's number: a group member who joined after it does not read it. */
  sequence: number;
  /** The send's idempotency key: a retry with it answers the same message. */
  clientMessageId: string;
  /** Sent while the recipient had blocked the creator: the recipient never reads it there. */
  withheld: boolean;
}
