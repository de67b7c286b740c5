/**
 * The contacts area of an api process: the block list (kept in the store and mirrored into
 * shared state for the ws pods) and safety-number verifications. The block mirror is the one
 * the app builds for every role; the accounts are identity's.
 */
import type { AccountRepository } from '../identity/accounts/account-repository.js';
import type { Logger } from '../platform/logging/logger.js';
import type { DocumentStore } from '../platform/store/document-store.js';
import { BlockList, blockIndexes } from './block-list.js';
import type { BlockMirror } from './block-mirror.js';
import { ContactVerifications } from './contact-verifications.js';
import { createContactsService } from './contacts-service.js';

export interface ContactsDependencies {
  readonly store: DocumentStore;
  readonly blockMirror: BlockMirror;
  readonly accounts: AccountRepository;
  readonly logger: Logger;
}

export async function createContactsArea({ store, blockMirror, accounts, logger }: ContactsDependencies) {
  await store.ensureIndexes(blockIndexes);
  const blocks = new BlockList(store, blockMirror);
  // In the background: a Redis that lost its data gets the blocks back; until then the store
  // (which every send and typing check reads) is right, only call refusals could miss a block.
  blocks.restoreMirror().then(
    (copied) => logger.info({ copied }, 'block mirror restored'),
    (error: unknown) => logger.warn({ err: error }, 'block mirror not restored; it is rebuilt at the next start'),
  );
  const verifications = new ContactVerifications(store);
  return { blocks, verifications, service: createContactsService({ blocks, verifications, accounts }) };
}

export type ContactsArea = Awaited<ReturnType<typeof createContactsArea>>;
