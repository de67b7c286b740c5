/** ContactsService (contacts.proto): blocking, safety-number verification and contact discovery. */
import type { HandlerContext } from '@connectrpc/connect';
import type {
  BlockContactRequest,
  DiscoverContactsRequest,
  ListBlockedContactsRequest,
  UnblockContactRequest,
  VerifyContactRequest,
} from '../gen/service/v1/contacts_pb.js';
import type { AccountRepository } from '../accounts/account-repository.js';
import { requireExistingUser } from '../accounts/existing-user.js';
import { requireCaller } from '../identity/auth/caller.js';
import { isWalletAddress } from '../accounts/wallet-address.js';
import { decodeCursor, pageSize } from '../platform/api/page-cursor.js';
import { invalidArgument, notFound } from '../platform/errors/api-error.js';
import type { Block, BlockList } from './block-list.js';
import type { ContactVerifications } from './contact-verifications.js';
import type { ContactDiscovery } from './discovery/contact-discovery.js';

/** DiscoverContacts' request limits (contacts.proto). */
const DISCOVERY_LIMITS = { hashes: 1000, hashLength: 128 } as const;

const blockedView = (block: Block) => ({
  address: block.blocked,
  blockedAt: block.blockedAt.toISOString(),
});

export interface ContactsServiceDependencies {
  readonly blocks: BlockList;
  readonly verifications: ContactVerifications;
  readonly accounts: AccountRepository;
  readonly discovery: ContactDiscovery;
}

export function createContactsService({
  blocks,
  verifications,
  accounts,
  discovery,
}: ContactsServiceDependencies) {
  /** Another existing user: 400 for a malformed address or the caller's own, 404 for an unknown one. */
  const otherUser = async (caller: string, address: string) => {
    if (isWalletAddress(address) && address.toLowerCase() === caller)
      throw invalidArgument('address must be another user');
    return requireExistingUser(accounts, address, 'address');
  };

  return {
    async blockContact(request: BlockContactRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const blocked = await otherUser(caller, request.address);
      const block = await blocks.block(caller, blocked);
      return { success: true, message: 'User blocked', contact: blockedView(block) };
    },

    async unblockContact(request: UnblockContactRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      if (!isWalletAddress(request.address))
        throw invalidArgument('address must be a wallet address (0x + 40 hex digits)');
      const address = request.address.toLowerCase();
      const wasBlocked = await blocks.unblock(caller, address);
      return {
        success: true,
        message: wasBlocked ? 'User unblocked' : 'User was not blocked',
        address,
        wasBlocked,
      };
    },

    async listBlockedContacts(request: ListBlockedContactsRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const page = await blocks.listBlocked(
        caller,
        pageSize(request.pageSize),
        decodeCursor(request.cursor),
      );
      return {
        success: true,
        message: `${page.items.length} blocked users`,
        blockedContacts: page.items.map(blockedView),
        nextCursor: page.nextCursor,
      };
    },

    async verifyContact(request: VerifyContactRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const contact = await otherUser(caller, request.address);
      if (!request.verified) {
        await verifications.clear(caller, contact);
        return {
          success: true,
          message: 'Verification cleared',
          address: contact,
          verified: false,
          identityKey: '',
          verifiedAt: '',
        };
      }
      if (request.identityKey === '') throw invalidArgument('identity_key is required to verify');
      const published = await verifications.publishedIdentityKey(contact);
      if (published === undefined) throw notFound('This user has no published key bundle');
      if (published !== request.identityKey)
        throw invalidArgument("identity_key is not the contact's current identity key");
      const record = await verifications.verify(caller, contact, published);
      return {
        success: true,
        message: 'Contact verified',
        address: contact,
        verified: true,
        identityKey: record.identityKey,
        verifiedAt: record.verifiedAt.toISOString(),
      };
    },

    async discoverContacts(request: DiscoverContactsRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const hashes = request.phoneHashes;
      if (hashes.length === 0 || hashes.length > DISCOVERY_LIMITS.hashes)
        throw invalidArgument(`phone_hashes holds 1 to ${DISCOVERY_LIMITS.hashes} hashes`);
      if (hashes.some((hash) => hash.length === 0 || hash.length > DISCOVERY_LIMITS.hashLength)) {
        throw invalidArgument(
          `every phone hash has 1 to ${DISCOVERY_LIMITS.hashLength} characters`,
        );
      }
      const matches = await discovery.find(caller, hashes);
      return { success: true, message: `${matches.length} contacts found`, matches };
    },
  };
}
