/**
 * Requests naming only `channel_id` go to the channels area (ChannelConversations), which keeps
 * channels; every other target is a direct chat or a group (docs/architecture.md, "Messaging").
 */

/** The request names a channel and nothing else (otherwise resolving it refuses the mix with 400). */
export const onlyChannel = (request: { peerAddress: string; groupId: string; channelId: string }) =>
  request.channelId !== '' && request.peerAddress === '' && request.groupId === '';
