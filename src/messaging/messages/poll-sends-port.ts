/**
 * What messaging asks of the polls area for a send with `poll_id` (SendMessage): the polls
 * area checks the poll (the caller's own, not yet in that conversation), sends it back through
 * messaging's sender as a `poll` message (or posts it in a channel) and records where it is.
 * The app hands the polls area's implementation to messaging; messaging never imports polls.
 */
import type { Message } from '../../gen/service/v1/messages_pb.js';

/** A send of a poll as the SendMessage request names it (its other fields checked empty). */
export interface PollSendRequest {
  readonly clientMessageId: string;
  readonly pollId: string;
  readonly recipientAddress: string;
  readonly groupId: string;
  readonly channelId: string;
}

export interface PollSends {
  send(caller: string, request: PollSendRequest): Promise<{ message: Message; duplicate: boolean }>;
}
