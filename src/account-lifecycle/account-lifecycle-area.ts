/**
 * The account-life area of an api process: moving an account to a new address (social
 * recovery completes with it) and deleting one, both as one durable walk over every area's
 * address-keyed records (`owners`, the app's `accountData` list, identity's account record
 * last), started by identity closing the wallet. Unfinished walks are finished by `resumer`;
 * `moves` is how social recovery moves an account (its `AccountMoves`).
 */
import type { AccountDataOwner } from '../platform/account-data/account-data-owner.js';
import type { AccountsSettings } from '../platform/config/settings.js';
import type { Logger } from '../platform/logging/logger.js';
import type { OutageLog } from '../platform/logging/outage-log.js';
import type { DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import { AccountWalks, accountWalkIndexes } from './account-walk.js';
import type { AccountWalkMetrics } from './account-walk-metrics.js';
import { AccountWalker } from './account-walker.js';
import type { WalletCloser } from './account-walker.js';
import { deleteAccount } from './delete-account.js';
import { WalkResumer } from './walk-resumer.js';

export interface AccountLifecycleDependencies {
  readonly settings: AccountsSettings;
  readonly store: DocumentStore;
  /** Every area's owner of address-keyed records, in walk order. */
  readonly owners: readonly AccountDataOwner[];
  readonly closer: WalletCloser;
  readonly confirmSecondFactor: (address: string, code: string) => Promise<void>;
  readonly metrics: AccountWalkMetrics;
  readonly logger: Logger;
  readonly outages: OutageLog;
}

/** Every index of the account-life area (created at start, and by the ensure-indexes command before a rollout). */
export const accountLifecycleIndexes: IndexSpec[] = [...accountWalkIndexes];

export async function createAccountLifecycleArea(deps: AccountLifecycleDependencies) {
  await deps.store.ensureIndexes(accountLifecycleIndexes);
  const walks = new AccountWalks(deps.store);
  const logger = deps.logger.child({ area: 'accounts' });
  const walker = new AccountWalker({
    walks,
    owners: deps.owners,
    closer: deps.closer,
    metrics: deps.metrics,
    logger,
    faultExitAfterOwner: deps.settings.faultExitAfterOwner,
  });
  return {
    walker,
    walks,
    resumer: new WalkResumer(walks, walker, deps.metrics, logger, deps.outages),
    /** Moving an account to the end (joining a move under way), and whether a move of `from` to `to` was recorded. */
    moves: {
      move: async (from: string, to: string) => void (await walker.walk('move', from, to)),
      isMoving: async (from: string, to: string) => {
        const walk = await walks.find(from);
        return walk?.kind === 'move' && walk.to === to;
      },
    },
    /** ProfileService.DeleteAccount. */
    service: {
      deleteAccount: deleteAccount({ walker, confirmSecondFactor: deps.confirmSecondFactor }),
    },
  };
}

export type AccountLifecycleArea = Awaited<ReturnType<typeof createAccountLifecycleArea>>;
