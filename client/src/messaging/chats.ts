/** The conversation list and group creation, typed by the generated messages. */
import type { ApiCaller } from '../api-caller.js';
import type { Chat } from '../gen/service/v1/messages_pb.js';
import { ListChatsRequestSchema, ListChatsResponseSchema } from '../gen/service/v1/messages_pb.js';
import type { CreateGroupResponse } from '../gen/service/v1/groups_pb.js';
import {
  CreateGroupRequestSchema,
  CreateGroupResponseSchema,
} from '../gen/service/v1/groups_pb.js';
import { rpc } from '../rpc.js';

/** Every chat of the caller, most recently changed first, all pages read. */
export async function listChats(api: ApiCaller): Promise<Chat[]> {
  const chats: Chat[] = [];
  let cursor = '';
  do {
    const page = await rpc(
      api,
      'GET',
      '/chats',
      { schema: ListChatsRequestSchema, init: { cursor, pageSize: 200 } },
      ListChatsResponseSchema,
    );
    chats.push(...page.chats);
    cursor = page.nextCursor;
  } while (cursor !== '');
  return chats;
}

/** Creates a group with the caller as owner and `members` (wallet addresses) in it. */
export function createGroup(
  api: ApiCaller,
  name: string,
  members: readonly string[],
): Promise<CreateGroupResponse> {
  return rpc(
    api,
    'POST',
    '/groups/create',
    { schema: CreateGroupRequestSchema, init: { name, memberAddresses: [...members] } },
    CreateGroupResponseSchema,
  );
}
