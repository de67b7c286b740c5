/**
 * Blocks: who has blocked whom, in the store, mirrored to shared state for the ws pods
 * (block-mirror.ts). Private to the blocker; the blocked user is never told.
 */
import type { CursorPosition } from '../platform/api/page-cursor.js';
import type { MirrorSource } from '../platform/shared-state/mirror-keeper.js';
import type { Collection, DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import { DuplicateKeyError } from '../platform/store/document-store.js';
import { newestFirstPage } from '../platform/store/newest-first-page.js';
import { rekeyDocuments } from '../platform/store/rekey-documents.js';
import type { NewestFirstPage } from '../platform/store/newest-first-page.js';
import type { BlockMirror } from './block-mirror.js';

export interface Block {
  /** `<blocker>|<blocked>` */
  _id: string;
  blocker: string;
  blocked: string;
  blockedAt: Date;
}

export const CONTACT_BLOCKS = 'contact_blocks';

export const blockIndexes: IndexSpec[] = [
  { collection: CONTACT_BLOCKS, name: 'by_blocker', key: { blocker: 1, blockedAt: -1, _id: 1 } },
  // Who blocked an account, for moving and deleting it.
  { collection: CONTACT_BLOCKS, name: 'by_blocked', key: { blocked: 1 } },
];

const blockId = (blocker: string, blocked: string) => `${blocker}|${blocked}`;

/**
 * Told after a block is durable, for what a block ends elsewhere (live location sharing: the app
 * announces it to the areas that subscribed). A listener handles its own failures: the block
 * stands whatever a listener does.
 */
export interface BlockListener {
  blocked(blocker: string, blocked: string): Promise<void>;
}

const nobodyListens: BlockListener = { blocked: async () => undefined };

/** Blocks copied to the mirror per batch when it is rebuilt. */
const MIRROR_BATCH = 500;

export class BlockList {
  private readonly blocks: Collection<Block>;

  constructor(
    store: DocumentStore,
    private readonly mirror: BlockMirror,
    private readonly listener: BlockListener = nobodyListens,
  ) {
    this.blocks = store.collection<Block>(CONTACT_BLOCKS);
  }

  /**
   * Blocks (idempotently) and returns the block, with its original time when it existed. The
   * mirror first: if the store write then fails, calls are refused, never let through. The
   * listener hears of every block, a repeated one too (so a reaction that failed gets another try).
   */
  async block(blocker: string, blocked: string): Promise<Block> {
    const block = await this.recorded({
      _id: blockId(blocker, blocked),
      blocker,
      blocked,
      blockedAt: new Date(),
    });
    await this.listener.blocked(blocker, blocked);
    return block;
  }

  private async recorded(block: Block): Promise<Block> {
    await this.mirror.record(block.blocker, block.blocked, true);
    try {
      await this.blocks.insertOne(block);
      return block;
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
      return (await this.blocks.findOne({ _id: block._id })) ?? block;
    }
  }

  /** True when a block existed. The store first, for the same reason as in `block`. */
  async unblock(blocker: string, blocked: string): Promise<boolean> {
    const { deletedCount } = await this.blocks.deleteOne({ _id: blockId(blocker, blocked) });
    await this.mirror.record(blocker, blocked, false);
    return deletedCount > 0;
  }

  async isBlocked(blocker: string, blocked: string): Promise<boolean> {
    return (
      (await this.blocks.findOne(
        { _id: blockId(blocker, blocked) },
        { projection: { _id: 1 } },
      )) !== null
    );
  }

  /** Of `candidates`, those that `blocker` has blocked. */
  async blockedAmong(blocker: string, candidates: readonly string[]): Promise<Set<string>> {
    if (candidates.length === 0) return new Set();
    const found = await this.blocks.find({
      _id: { $in: candidates.map((each) => blockId(blocker, each)) },
    });
    return new Set(found.map((block) => block.blocked));
  }

  /** Of `candidates`, those who have blocked `blocked`. */
  async blockersAmong(blocked: string, candidates: readonly string[]): Promise<Set<string>> {
    if (candidates.length === 0) return new Set();
    const found = await this.blocks.find({
      _id: { $in: candidates.map((each) => blockId(each, blocked)) },
    });
    return new Set(found.map((block) => block.blocker));
  }

  /** The blocker's blocks, most recent first. */
  listBlocked(
    blocker: string,
    limit: number,
    after: CursorPosition | undefined,
  ): Promise<NewestFirstPage<Block>> {
    return newestFirstPage(this.blocks, { blocker }, 'blockedAt', limit, after);
  }

  /**
   * Re-keys every block made by or against `from` to `to` (an account move), keeping each
   * block's time; an existing block at the new key is kept. The new block reaches the mirror
   * before the store, and the old one leaves the mirror after the store, as block and unblock do.
   */
  async moveAll(from: string, to: string): Promise<void> {
    const swap = (address: string) => (address === from ? to : address);
    await rekeyDocuments(
      this.blocks,
      { $or: [{ blocker: from }, { blocked: from }] },
      (block) => {
        const blocker = swap(block.blocker);
        const blocked = swap(block.blocked);
        return { ...block, _id: blockId(blocker, blocked), blocker, blocked };
      },
      {
        before: (block) => this.mirror.record(block.blocker, block.blocked, true),
        after: (block) => this.mirror.record(block.blocker, block.blocked, false),
      },
    );
  }

  /** Removes every block made by or against the account (a deletion): store first, then the mirror. */
  async removeAll(address: string): Promise<void> {
    const blocks = await this.blocks.find({ $or: [{ blocker: address }, { blocked: address }] });
    await this.blocks.deleteMany({ $or: [{ blocker: address }, { blocked: address }] });
    await Promise.all(
      blocks.map((block) => this.mirror.record(block.blocker, block.blocked, false)),
    );
  }

  /** Copies every block into the mirror (mirror-keeper.ts calls it when Redis lost its data). */
  async restoreMirror(): Promise<number> {
    let after = '';
    let copied = 0;
    for (;;) {
      const batch = await this.blocks.find(
        { _id: { $gt: after } },
        { sort: { _id: 1 }, limit: MIRROR_BATCH },
      );
      await Promise.all(
        batch.map((block) => this.mirror.record(block.blocker, block.blocked, true)),
      );
      copied += batch.length;
      if (batch.length < MIRROR_BATCH) return copied;
      after = batch[batch.length - 1]!._id;
    }
  }
}

/** The block mirror as the mirror keeper rebuilds it. */
export const blocksMirror = (blocks: BlockList): MirrorSource => ({
  name: 'blocks',
  restore: () => blocks.restoreMirror(),
});
