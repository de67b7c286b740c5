/**
 * Channel posts on a ws pod: each connection's feed (channel-feed.ts) follows the channels its
 * user follows (channel-follows.ts), and the pod subscribes to a channel's topic while at least
 * one connection here follows it. A post reaches the pod once, whatever the number of
 * followers, and is handed to each following connection on it.
 *
 * Follow changes are announced on one shared channel; a pod that may have missed some (its
 * subscription was re-established) re-reads the lists of its connected users. While the
 * follow mirror is being rebuilt (Redis lost its data) a list cannot be read: the feed keeps
 * what it had and asks again every second.
 *
 * Posts published while the pod's subscription to a channel's topic was lost (Redis cut off)
 * never arrive: when it is back, the channel's latest numbers are read once and each following
 * connection is sent what it missed (channel-feed.ts `catchUp`). A connection that was sent no
 * post of the channel yet misses those after the last number the pod knew of, so the pod keeps,
 * per topic, the highest number it heard (or read when it subscribed).
 */
import type { Unsubscribe } from '../platform/shared-state/shared-state.js';
import { ChannelFeed } from './channel-feed.js';
import type { DeliveryCounter, FrameSink } from './client-connection.js';
import type { ChannelFollows, FollowChange } from '../events/channel-follows.js';
import type { ChannelPostStream, LogNumbers, StreamedPost } from '../events/channel-post-stream.js';
import { TopicSubscriptions } from './topic-subscriptions.js';

/** How long to wait before listening or reading a follow list again after a failed attempt. */
const RETRY_MS = 1000;

export class ChannelDelivery {
  private readonly topics: TopicSubscriptions<StreamedPost, ChannelFeed>;
  private readonly feedsByAddress = new Map<string, Set<ChannelFeed>>();
  private listening: Promise<Unsubscribe> | undefined;
  private listenRetry: NodeJS.Timeout | undefined;
  private listenFailed = false;
  private stopped = false;
  /** Follow changes heard per feed: a list read while one arrived may be stale and is read again. */
  private readonly changesHeard = new WeakMap<ChannelFeed, number>();
  /**
   * Per subscribed topic, the highest number of each log published on it that the pod knows of:
   * read when it subscribed (or caught up), raised by each live entry; absent until read.
   */
  private readonly heard = new Map<string, LogNumbers>();

  constructor(
    private readonly posts: ChannelPostStream,
    private readonly follows: ChannelFollows,
    private readonly counter: DeliveryCounter,
    onPost: (publishedAt: number) => void,
    private readonly onFailure: (error: unknown, address: string) => void,
    private readonly onTopicCount: (count: number) => void,
  ) {
    this.topics = new TopicSubscriptions(
      (channelId, handler) => this.subscribeTopic(channelId, handler),
      (feed, post) => feed.deliver(post),
      (post) => {
        this.raiseHeard(post);
        onPost(post.publishedAt);
      },
    );
  }

  /**
   * Starts hearing follow changes, retrying every second while shared state is away; feeds
   * opened meanwhile re-read their lists once it listens (they may have missed changes).
   */
  listen(): void {
    this.listening = this.follows.listen(
      (address, change, channelId) => this.changed(address, change, channelId),
      () => this.refreshAll(),
    );
    this.listening.then(
      (unsubscribe) => {
        if (this.stopped) void unsubscribe().catch(() => undefined);
        else if (this.listenFailed) this.refreshAll();
      },
      (error: unknown) => {
        this.listenFailed = true;
        this.onFailure(error, '');
        if (!this.stopped) this.listenRetry = setTimeout(() => this.listen(), RETRY_MS);
      },
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.listenRetry);
    await (await this.listening?.catch(() => undefined))?.().catch(() => undefined);
  }

  /** A connection's feed, following its user's channels; rejects when shared state is away. */
  async open(address: string, sink: FrameSink): Promise<ChannelFeed> {
    const feed = new ChannelFeed(address, sink, this.posts, this.counter);
    let feeds = this.feedsByAddress.get(address);
    if (!feeds) this.feedsByAddress.set(address, (feeds = new Set()));
    feeds.add(feed);
    await this.refresh(feed);
    return feed;
  }

  close(feed: ChannelFeed): void {
    const feeds = this.feedsByAddress.get(feed.address);
    if (!feeds?.delete(feed)) return;
    if (feeds.size === 0) this.feedsByAddress.delete(feed.address);
    for (const channelId of [...feed.channels]) this.leave(feed, channelId);
  }

  /** Subscribes to the channel's topic, then reads the numbers a later catch-up starts after. */
  private async subscribeTopic(
    channelId: string,
    handler: (post: StreamedPost) => void,
  ): Promise<Unsubscribe> {
    const unsubscribe = await this.posts.subscribe(channelId, handler, () =>
      this.catchUp(channelId),
    );
    // Not awaited: the connection's opening does not wait for it. Until it answers, a loss
    // leaves the pod no number, and connections sent no post yet are told to resync.
    this.readLatest(channelId).catch(() => undefined);
    return unsubscribe;
  }

  /** The topic's subscription is back after a loss: its connections get what they missed. */
  private catchUp(channelId: string): void {
    const known = this.heard.get(channelId);
    const heardBefore = known && { ...known };
    const latest = this.readLatest(channelId);
    // Each feed reports a failed read to its client; this copy only keeps it from going unhandled.
    latest.catch(() => undefined);
    for (const feed of this.topics.listenersOf(channelId))
      feed.catchUp(channelId, latest, heardBefore);
  }

  /** The channel's latest numbers, which the pod then knows of (while it still subscribes). */
  private async readLatest(channelId: string): Promise<LogNumbers> {
    const latest = await this.posts.latestOfLogs(channelId);
    if (this.topics.listenersOf(channelId).size > 0) {
      const known = this.heard.get(channelId);
      this.heard.set(channelId, {
        posts: Math.max(known?.posts ?? 0, latest.posts),
        changes: Math.max(known?.changes ?? 0, latest.changes),
      });
    }
    return latest;
  }

  /** A live entry: a number the pod knows of, once it knows where the topic's numbers stood. */
  private raiseHeard(post: StreamedPost): void {
    const known = this.heard.get(post.channelId);
    if (known) known[post.log] = Math.max(known[post.log], post.sequence);
  }

  private refreshAll(): void {
    for (const feeds of this.feedsByAddress.values()) {
      for (const feed of feeds)
        this.refresh(feed).catch((error: unknown) => this.onFailure(error, feed.address));
    }
  }

  private isOpen(feed: ChannelFeed): boolean {
    return this.feedsByAddress.get(feed.address)?.has(feed) ?? false;
  }

  /** Makes the feed follow exactly its user's list. */
  private async refresh(feed: ChannelFeed): Promise<void> {
    const heard = this.changesHeard.get(feed) ?? 0;
    const list = await this.follows.of(feed.address);
    if (!this.isOpen(feed)) return;
    if ((this.changesHeard.get(feed) ?? 0) !== heard) return this.refresh(feed);
    if (list === 'unknown') {
      setTimeout(
        () =>
          void this.refresh(feed).catch((error: unknown) => this.onFailure(error, feed.address)),
        RETRY_MS,
      ).unref();
      return;
    }
    const wanted = new Set(list);
    for (const channelId of [...feed.channels])
      if (!wanted.has(channelId)) this.leave(feed, channelId);
    await Promise.all(
      [...wanted]
        .filter((channelId) => !feed.channels.has(channelId))
        .map((channelId) => this.join(feed, channelId)),
    );
  }

  private changed(address: string, change: FollowChange, channelId: string): void {
    for (const feed of this.feedsByAddress.get(address) ?? []) {
      this.changesHeard.set(feed, (this.changesHeard.get(feed) ?? 0) + 1);
      if (change === '-') this.leave(feed, channelId);
      else if (!feed.channels.has(channelId))
        this.join(feed, channelId).catch((error: unknown) => this.onFailure(error, address));
    }
  }

  private join(feed: ChannelFeed, channelId: string): Promise<void> {
    feed.follow(channelId);
    const added = this.topics.add(channelId, feed);
    this.onTopicCount(this.topics.size);
    return added;
  }

  private leave(feed: ChannelFeed, channelId: string): void {
    feed.unfollow(channelId);
    this.topics.remove(channelId, feed);
    if (this.topics.listenersOf(channelId).size === 0) this.heard.delete(channelId);
    this.onTopicCount(this.topics.size);
  }
}
