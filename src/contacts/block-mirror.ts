/**
 * Who blocks whom, mirrored into shared state for the ws pods, which have no store but must
 * refuse calls between users when either has blocked the other. The store stays the record
 * (ContactsService writes it first); the mirror is written right after it, and rebuilt from the
 * store when an api process starts, so a Redis that lost its data is repaired by the next
 * rollout or restart.
 */
import type { SharedState } from '../platform/shared-state/shared-state.js';

const keyOf = (blocker: string, blocked: string) => `block:${blocker}:${blocked}`;

export class BlockMirror {
  constructor(private readonly state: SharedState) {}

  async record(blocker: string, blocked: string, isBlocked: boolean): Promise<void> {
    if (isBlocked) await this.state.set(keyOf(blocker, blocked), '1');
    else await this.state.delete(keyOf(blocker, blocked));
  }

  /** True when either user has blocked the other. */
  async eitherBlocks(a: string, b: string): Promise<boolean> {
    const [ab, ba] = await Promise.all([this.state.exists(keyOf(a, b)), this.state.exists(keyOf(b, a))]);
    return ab || ba;
  }
}
