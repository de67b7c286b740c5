/**
 * Reads a conversation's history from the service (`GET /messages`) as the SDK's messaging code
 * would, handing each message it has not seen yet to the cipher, in order.
 */
import type { FetchApiCaller } from './fetch-api-caller.js';

export interface StoredMessage {
  id: string;
  sender_address: string;
  ciphertext: string;
}

export class ConversationReader {
  private readonly seen = new Set<string>();

  constructor(
    private readonly api: FetchApiCaller,
    private readonly query: string,
  ) {}

  /** The messages stored since the last read, oldest first. */
  async unread(): Promise<StoredMessage[]> {
    const page = await this.api.call<{ messages: StoredMessage[] }>(
      'GET',
      `/messages?${this.query}&page_size=200`,
    );
    const fresh = page.messages.filter((message) => !this.seen.has(message.id));
    for (const message of fresh) this.seen.add(message.id);
    return fresh;
  }
}

export const directWith = (api: FetchApiCaller, peer: string) =>
  new ConversationReader(api, `peer_address=${peer}`);

export const groupHistory = (api: FetchApiCaller, groupId: string) =>
  new ConversationReader(api, `group_id=${encodeURIComponent(groupId)}`);
