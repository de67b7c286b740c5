/**
 * Who may read a channel, as the media access rule asks it for channel posts' media. The
 * channels area answers it (`ChannelAccess.mayRead`), but it is built after media (its posts
 * hold media), so the app binds it once channels exist; until then no post grants access.
 */
export interface ChannelReaders {
  mayRead(channelId: string, address: string): Promise<boolean>;
}

export class LateChannelReaders implements ChannelReaders {
  private readers: ChannelReaders | undefined;

  bind(readers: ChannelReaders): void {
    if (this.readers) throw new Error('The channel readers are bound already');
    this.readers = readers;
  }

  async mayRead(channelId: string, address: string): Promise<boolean> {
    return (await this.readers?.mayRead(channelId, address)) ?? false;
  }
}
