/**
 * The polls area of an api process: polls and their votes in the store. It uses channels'
 * `ChannelAccess` (who may read or publish in a channel) and poll posts, messaging's sender for
 * polls sent in a direct chat, and for live results the `MessagingEvents` publisher and the
 * channel topics.
 */
import type { ChannelAccess } from '../channels/channel-access.js';
import type { ChannelPollPosts } from '../channels/channel-publisher.js';
import type { AccountRepository } from '../accounts/account-repository.js';
import type { Logger } from '../platform/logging/logger.js';
import type { DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import type { MessagingEvents } from '../events/messaging-events.js';
import { PollRepository, pollIndexes } from './poll.js';
import { PollAccess } from './poll-access.js';
import { PollCreation } from './poll-creation.js';
import type { PollMessages } from './poll-creation.js';
import { PollVotes, pollVoteIndexes } from './poll-votes.js';
import { PollVoting } from './poll-voting.js';
import type { ChannelEvents } from './poll-voting.js';
import { PollsAccountData } from './polls-account-data.js';
import { createPollsService } from './polls-service.js';

export interface PollsDependencies {
  readonly store: DocumentStore;
  readonly accounts: AccountRepository;
  readonly channels: ChannelAccess;
  readonly channelPosts: ChannelPollPosts;
  readonly messages: PollMessages;
  readonly events: MessagingEvents;
  readonly channelEvents: ChannelEvents;
  readonly logger: Logger;
}

/** Every index of the polls area (created at start, and by the ensure-indexes command before a rollout). */
export const pollsIndexes: IndexSpec[] = [...pollIndexes, ...pollVoteIndexes];

export async function createPollsArea({
  store,
  accounts,
  channels,
  channelPosts,
  messages,
  events,
  channelEvents,
  logger,
}: PollsDependencies) {
  await store.ensureIndexes(pollsIndexes);
  const polls = new PollRepository(store);
  const votes = new PollVotes(store);
  return {
    service: createPollsService({
      polls,
      creation: new PollCreation(polls, channels, messages, channelPosts),
      access: new PollAccess(polls, channels),
      votes,
      voting: new PollVoting(votes, events, channelEvents, logger),
      accounts,
    }),
    accountData: new PollsAccountData(polls, votes),
  };
}

export type PollsArea = Awaited<ReturnType<typeof createPollsArea>>;
