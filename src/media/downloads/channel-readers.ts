/**
 * Who may read a channel, as the media access rule asks it for channel posts' media. The
 * channels area answers it (`ChannelAccess.mayRead`); it is given to the media service
 * (createMediaArea), which the app builds after channels.
 */
export interface ChannelReaders {
  mayRead(channelId: string, address: string): Promise<boolean>;
}
