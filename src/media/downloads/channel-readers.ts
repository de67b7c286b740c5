/**
 * Who may read a channel, as the media access rule asks it for channel posts' media. The
 * channels area answers it (`ChannelAccess.mayRead`), but it is built after media (its posts
 * hold media), so the app binds it once channels exist (`LateBound`).
 */
export interface ChannelReaders {
  mayRead(channelId: string, address: string): Promise<boolean>;
}
