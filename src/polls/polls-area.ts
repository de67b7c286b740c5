/**
 * The polls area of an api process: polls and their votes in the store, built in two steps.
 * Messaging's send route places polls (SendMessage with `poll_id`) and polls are sent through
 * messaging's sender, so messaging builds the sending part (`createPollSends`, its `PollSends`
 * port) with its sender; the area (`createPollsArea`) then creates polls through it. It uses
 * channels' `ChannelAccess` (who may read or publish in a channel) and poll posts, messaging's
 * member records (who reads a group's poll), and for live results the `MessagingEvents`
 * publisher and the channel topics.
 */
import type { ChannelAccess } from '../channels/channel-access.js';
import type { ChannelPollPosts } from '../channels/channel-publisher.js';
import type { AccountRepository } from '../accounts/account-repository.js';
import type { Logger } from '../platform/logging/logger.js';
import type { DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import type { MessagingEvents } from '../events/messaging-events.js';
import { upgradeLegacyPolls } from './legacy-poll-upgrade.js';
import { PollRepository, pollIndexes } from './poll.js';
import { PollAccess } from './poll-access.js';
import type { Conversations } from '../messaging/conversations/conversations.js';
import type { PollSends } from '../messaging/messages/poll-sends-port.js';
import { PollCreation } from './poll-creation.js';
import { PollPlacing } from './poll-placing.js';
import type { PollMessages } from './poll-placing.js';
import { PollVotes, pollVoteIndexes } from './poll-votes.js';
import { PollVoting } from './poll-voting.js';
import type { ChannelEvents } from './poll-voting.js';
import { PollsAccountData } from './polls-account-data.js';
import { createPollsService } from './polls-service.js';

/** Messaging's member records as polls read them: who reads a group's poll message. */
type GroupMembers = Pick<Conversations, 'member' | 'readersOf'>;

export interface PollSendsDependencies {
  readonly store: DocumentStore;
  readonly accounts: AccountRepository;
  readonly channels: ChannelAccess;
  readonly channelPosts: ChannelPollPosts;
  readonly groups: GroupMembers;
  /** Messaging's sender, which builds this part. */
  readonly messages: PollMessages;
}

/** The polls' side of SendMessage with `poll_id` and of a poll created with its conversation. */
export function createPollSends(deps: PollSendsDependencies): PollSends {
  const polls = new PollRepository(deps.store);
  return new PollPlacing({
    ...deps,
    polls,
    access: new PollAccess(polls, deps.channels, deps.groups),
  });
}

export interface PollsDependencies {
  readonly store: DocumentStore;
  readonly channels: ChannelAccess;
  readonly groups: GroupMembers;
  /** The sending part (createPollSends), built by messaging. */
  readonly sends: PollSends;
  readonly events: MessagingEvents;
  readonly channelEvents: ChannelEvents;
  readonly logger: Logger;
}

/** Every index of the polls area (created at start, and by the ensure-indexes command before a rollout). */
export const pollsIndexes: IndexSpec[] = [...pollIndexes, ...pollVoteIndexes];

export async function createPollsArea({
  store,
  channels,
  groups,
  sends,
  events,
  channelEvents,
  logger,
}: PollsDependencies) {
  await store.ensureIndexes(pollsIndexes);
  // Polls stored before `places` (legacy-poll-upgrade.ts); the ensure-indexes Job runs it too.
  const upgraded = await upgradeLegacyPolls(store);
  if (upgraded > 0) logger.info({ upgraded }, 'polls: legacy records upgraded to places');
  const polls = new PollRepository(store);
  const votes = new PollVotes(store);
  return {
    service: createPollsService({
      polls,
      creation: new PollCreation(polls, sends),
      access: new PollAccess(polls, channels, groups),
      votes,
      voting: new PollVoting(votes, events, channelEvents, groups, logger),
    }),
    accountData: new PollsAccountData(polls, votes),
  };
}

export type PollsArea = Awaited<ReturnType<typeof createPollsArea>>;
