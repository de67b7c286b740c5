/**
 * Posts as one reader sees them: the post with its reaction counts (stored on it) and the
 * reader's own keys (one read of the reader's records for the whole page).
 */
import type { Message } from '../gen/service/v1/messages_pb.js';
import type { StoredPost } from './channel-posts.js';
import type { ChannelReactions } from './channel-reactions.js';
import { postView } from './channel-view.js';

export class ChannelPostViews {
  constructor(private readonly reactions: ChannelReactions) {}

  async pageFor(reader: string, posts: readonly StoredPost[]): Promise<Message[]> {
    const mine = await this.reactions.keysOf(
      reader,
      posts.map((post) => post._id),
    );
    return posts.map((post) => postView(post, mine.get(post._id) ?? []));
  }

  async postFor(reader: string, post: StoredPost): Promise<Message> {
    return (await this.pageFor(reader, [post]))[0]!;
  }
}
