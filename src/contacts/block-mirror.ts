/**
 * Who blocks whom, mirrored into shared state for the ws pods, which have no store but must
 * refuse calls between users when either has blocked the other. The store stays the record;
 * the mirror is rebuilt from it whenever Redis lost its data (mirror-keeper.ts), and until then
 * a lookup cannot vouch that there is no block: `eitherBlocks` then throws
 * DependencyUnavailableError, and the call is refused as UNAVAILABLE, never let through.
 *
 * Both directions of a pair live in the pair's shard bucket, so one lookup reads them and the marker.
 */
import { DependencyUnavailableError } from '../platform/errors/dependency-unavailable.js';
import { lookUpMirror, mirrorKey } from '../platform/shared-state/mirror-completeness.js';
import type { SharedState } from '../platform/shared-state/shared-state.js';

/** The same for both orders of the two users. */
const pairOf = (a: string, b: string) => (a < b ? `${a}|${b}` : `${b}|${a}`);
const keyOf = (blocker: string, blocked: string) =>
  mirrorKey(pairOf(blocker, blocked), `block:${blocker}:${blocked}`);

export class BlockMirror {
  constructor(private readonly state: SharedState) {}

  async record(blocker: string, blocked: string, isBlocked: boolean): Promise<void> {
    if (isBlocked) await this.state.set(keyOf(blocker, blocked), '1');
    else await this.state.delete(keyOf(blocker, blocked));
  }

  /** True when either user has blocked the other; throws while the mirror cannot vouch. */
  async eitherBlocks(a: string, b: string): Promise<boolean> {
    const answer = await lookUpMirror(this.state, pairOf(a, b), [keyOf(a, b), keyOf(b, a)]);
    if (answer === 'unknown')
      throw new DependencyUnavailableError('redis', 'the block mirror is being rebuilt');
    return answer === 'found';
  }
}
