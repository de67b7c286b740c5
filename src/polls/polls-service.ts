/** PollsService (polls.proto): creating, reading and voting on polls. */
import type { HandlerContext } from '@connectrpc/connect';
import type {
  CreatePollRequest,
  GetPollRequest,
  ListPollsRequest,
  VotePollRequest,
} from '../gen/service/v1/polls_pb.js';
import { requireCaller } from '../identity/auth/caller.js';
import { isWalletAddress } from '../accounts/wallet-address.js';
import { decodeCursor, pageSize } from '../platform/api/page-cursor.js';
import { invalidArgument } from '../platform/errors/api-error.js';
import type { PollRepository, PollScope } from './poll.js';
import type { PollAccess } from './poll-access.js';
import type { PollCreation } from './poll-creation.js';
import { targetOf } from './poll-placing.js';
import { checkedExpiry, checkedId, checkedOptions, checkedQuestion } from './poll-rules.js';
import type { PollVotes } from './poll-votes.js';
import type { PollVoting } from './poll-voting.js';
import { pollView } from './poll-view.js';

export interface PollsServiceDependencies {
  readonly polls: PollRepository;
  readonly creation: PollCreation;
  readonly access: PollAccess;
  readonly votes: PollVotes;
  readonly voting: PollVoting;
}

export function createPollsService({
  polls,
  creation,
  access,
  votes,
  voting,
}: PollsServiceDependencies) {
  /** Which polls ListPolls shows: at most one of a channel and a peer in the direct chat. */
  const scopeOf = async (request: ListPollsRequest, caller: string): Promise<PollScope> => {
    const { channelId, peerAddress } = request;
    if (channelId !== '' && peerAddress !== '')
      throw invalidArgument('At most one of channel_id and peer_address');
    if (channelId !== '') {
      await access.requireReadableChannel(checkedId(channelId, 'channel_id'), caller);
      return { channelId };
    }
    if (peerAddress === '') return { participant: caller };
    if (!isWalletAddress(peerAddress))
      throw invalidArgument('peer_address must be a wallet address (0x + 40 hex digits)');
    return { participant: caller, peer: peerAddress.toLowerCase() };
  };

  return {
    async listPolls(request: ListPollsRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const limit = pageSize(request.pageSize);
      const cursor = decodeCursor(request.cursor);
      const page = await polls.page(await scopeOf(request, caller), limit, cursor);
      const tallies = await votes.tallies(
        page.items.map((poll) => poll._id),
        caller,
      );
      return {
        success: true,
        message: `${page.items.length} polls`,
        polls: page.items.map((poll) => pollView(poll, tallies.get(poll._id)!)),
        nextCursor: page.nextCursor,
      };
    },

    async createPoll(request: CreatePollRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const fields = {
        question: checkedQuestion(request.question),
        options: checkedOptions(request.options),
        allowsMultiple: request.allowsMultiple,
        expiresAt: checkedExpiry(request.expiresAt),
      };
      // No conversation keeps the poll the caller's own (the spec's bare request).
      const target = targetOf(request) === null ? null : request;
      const poll = await creation.create(caller, fields, target);
      return {
        success: true,
        message: 'Poll created',
        poll: pollView(poll, await votes.tally(poll._id, caller)),
      };
    },

    async getPoll(request: GetPollRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const poll = await access.visible(checkedId(request.pollId, 'poll_id'), caller);
      return {
        success: true,
        message: 'Poll found',
        poll: pollView(poll, await votes.tally(poll._id, caller)),
      };
    },

    async votePoll(request: VotePollRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const poll = await access.visible(checkedId(request.pollId, 'poll_id'), caller);
      const tally = await voting.vote(poll, caller, request.optionIds);
      return { success: true, message: 'Vote recorded', poll: pollView(poll, tally) };
    },
  };
}
