/** ContactsService (contacts.proto): blocking and safety-number verification. */
import type { HandlerContext } from '@connectrpc/connect';
import type {
  BlockContactRequest,
  ListBlockedContactsRequest,
  UnblockContactRequest,
  VerifyContactRequest,
} from '../gen/service/v1/contacts_pb.js';
import { requireCaller } from '../identity/auth/caller.js';
import { isWalletAddress } from '../identity/wallet/wallet-address.js';
import type { Conversations } from '../messaging/conversations/conversations.js';
import { decodeCursor, encodeCursor, pageSize } from '../platform/api/page-cursor.js';
import { invalidArgument, notFound } from '../platform/errors/api-error.js';
import type { StoreFilter } from '../platform/store/document-store.js';
import type { Block, BlockList } from './block-list.js';
import type { ContactVerifications } from './contact-verifications.js';

const blockedView = (block: Block) => ({ address: block.blocked, blockedAt: block.blockedAt.toISOString() });

export function createContactsService(blocks: BlockList, verifications: ContactVerifications, conversations: Conversations) {
  /** Another existing user: 400 for a malformed address or the caller's own, 404 for an unknown one. */
  const otherUser = async (caller: string, address: string) => {
    if (isWalletAddress(address) && address.toLowerCase() === caller) throw invalidArgument('address must be another user');
    return conversations.existingUser(address, 'address');
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
      if (!isWalletAddress(request.address)) throw invalidArgument('address must be a wallet address (0x + 40 hex digits)');
      const address = request.address.toLowerCase();
      const wasBlocked = await blocks.unblock(caller, address);
      return { success: true, message: wasBlocked ? 'User unblocked' : 'User was not blocked', address, wasBlocked };
    },

    async listBlockedContacts(request: ListBlockedContactsRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const limit = pageSize(request.pageSize);
      const after = decodeCursor(request.cursor);
      const filter: StoreFilter<Block> = after
        ? { blocker: caller, $or: [{ blockedAt: { $lt: new Date(after.sortValue) } }, { blockedAt: new Date(after.sortValue), _id: { $gt: after.id } }] }
        : { blocker: caller };
      const found = await blocks.blocks.find(filter, { sort: { blockedAt: -1, _id: 1 }, limit: limit + 1 });
      const page = found.slice(0, limit);
      const last = page[page.length - 1];
      const nextCursor = found.length > limit && last ? encodeCursor({ sortValue: last.blockedAt.getTime(), id: last._id }) : '';
      return { success: true, message: `${page.length} blocked users`, blockedContacts: page.map(blockedView), nextCursor };
    },

    async verifyContact(request: VerifyContactRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const contact = await otherUser(caller, request.address);
      if (!request.verified) {
        await verifications.clear(caller, contact);
        return { success: true, message: 'Verification cleared', address: contact, verified: false, identityKey: '', verifiedAt: '' };
      }
      if (request.identityKey === '') throw invalidArgument('identity_key is required to verify');
      const published = await verifications.publishedIdentityKey(contact);
      if (published === undefined) throw notFound('This user has no published key bundle');
      if (published !== request.identityKey) throw invalidArgument("identity_key is not the contact's current identity key");
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
  };
}
