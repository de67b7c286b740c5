/**
 * Runs account moves and deletions over every owner of address-keyed records, in the order of
 * `accountData` (identity's account record last). A walk first closes the wallet (identity:
 * retired for sign-in, every session ended), then asks each owner in turn and records its
 * progress after each (account-walk.ts), so a walk interrupted anywhere resumes at the owner it
 * was in. One process runs a given walk once at a time; two processes that both resume it are
 * harmless, since every owner's steps are idempotent.
 */
import type { AccountDataOwner } from '../platform/account-data/account-data-owner.js';
import type { Logger } from '../platform/logging/logger.js';
import type { AccountWalk, AccountWalks, WalkKind } from './account-walk.js';
import type { AccountWalkMetrics } from './account-walk-metrics.js';

/** Identity's side of a walk's first step: the wallet can no longer sign in, its sessions end. */
export interface WalletCloser {
  close(address: string, movedTo: string | null): Promise<void>;
}

export interface AccountWalkerDependencies {
  readonly walks: AccountWalks;
  readonly owners: readonly AccountDataOwner[];
  readonly closer: WalletCloser;
  readonly metrics: AccountWalkMetrics;
  readonly logger: Logger;
  /** ACCOUNT_WALK_FAULT_EXIT_AFTER: the process kills itself after this many owners (0: never). */
  readonly faultExitAfterOwner: number;
}

export class AccountWalker {
  private readonly running = new Map<string, Promise<AccountWalk>>();

  constructor(private readonly deps: AccountWalkerDependencies) {}

  /** Moves or deletes the account, to the end; joins the walk already under way for it. */
  async walk(kind: WalkKind, address: string, to: string | null): Promise<AccountWalk> {
    return this.resume(await this.deps.walks.begin(kind, address, to));
  }

  /** Runs a recorded walk from where it stopped. */
  resume(walk: AccountWalk): Promise<AccountWalk> {
    if (walk.finishedAt) return Promise.resolve(walk);
    let run = this.running.get(walk._id);
    if (!run) {
      run = this.run(walk).finally(() => this.running.delete(walk._id));
      this.running.set(walk._id, run);
    }
    return run;
  }

  /** Resolves when no walk of this process is running. */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.running.values()]);
  }

  private async run(walk: AccountWalk): Promise<AccountWalk> {
    const { walks, owners, closer, metrics, logger } = this.deps;
    const log = logger.child({ walk: walk.kind, ownersDone: walk.ownersDone });
    await closer.close(walk._id, walk.to);
    for (let index = walk.ownersDone; index < owners.length; index++) {
      const owner = owners[index]!;
      const ended = metrics.ownerSeconds.startTimer({ kind: walk.kind, owner: owner.name });
      if (walk.kind === 'move') await owner.moveAccount(walk._id, walk.to!);
      else await owner.deleteAccount(walk._id);
      ended();
      await walks.advance(walk._id, index + 1);
      if (this.deps.faultExitAfterOwner === index + 1) {
        log.warn(
          { owner: owner.name },
          'ACCOUNT_WALK_FAULT_EXIT_AFTER: killing the process mid-walk',
        );
        process.kill(process.pid, 'SIGKILL');
      }
    }
    const finished = await walks.finish(walk._id);
    metrics.walks.inc({ kind: walk.kind });
    log.info({ owners: owners.length }, 'account walk finished');
    return finished;
  }
}
