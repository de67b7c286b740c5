/**
 * The relation routes over REST (messages.proto: edit, delete for everyone and for me, react,
 * pins) and a send with a reply and mentions, shared by the relation test files. A
 * conversation is named as in every messaging request: `{peer_address}`, `{group_id}` or
 * `{channel_id}`.
 */
import type { Api, Reply } from '../support/session-api.js';
import { expectOk } from '../support/session-api.js';
import { bearer } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import type { Json } from '../support/json.js';

export type Where = { peer_address: string } | { group_id: string } | { channel_id: string };

export const b64 = (text: string) => Buffer.from(text).toString('base64');
export const text = (base64: string) => Buffer.from(base64, 'base64').toString('utf8');
export const addressOf = (session: SignedIn) => session.user.address.toLowerCase();

let counter = 0;
export const newClientId = () => `rel-${Date.now()}-${++counter}`;

export class RelationCalls {
  constructor(private readonly api: () => Api) {}

  /** Sends a text (direct: `recipient_address`) with optional reply and mentions. */
  send(from: SignedIn, where: Where, body: string, extra: Record<string, unknown> = {}) {
    const target =
      'peer_address' in where ? { recipient_address: where.peer_address } : { ...where };
    return this.api().post(
      '/api/v1/send',
      { client_message_id: newClientId(), ciphertext: b64(body), ...target, ...extra },
      bearer(from),
    );
  }

  async sent(from: SignedIn, where: Where, body: string, extra: Record<string, unknown> = {}) {
    return expectOk(await this.send(from, where, body, extra)).chat_message;
  }

  edit(caller: SignedIn, where: Where, messageId: string, body: string) {
    return this.post(caller, 'edit', where, messageId, { ciphertext: b64(body) });
  }

  deleteForEveryone(caller: SignedIn, where: Where, messageId: string) {
    return this.post(caller, 'delete', where, messageId);
  }

  deleteForMe(caller: SignedIn, where: Where, messageId: string) {
    return this.post(caller, 'delete-for-me', where, messageId);
  }

  react(
    caller: SignedIn,
    where: Where,
    messageId: string,
    reaction: { ciphertext?: string; key?: string },
  ) {
    return this.post(caller, 'react', where, messageId, reaction);
  }

  unreact(caller: SignedIn, where: Where, messageId: string, key?: string) {
    return this.post(caller, 'unreact', where, messageId, key === undefined ? {} : { key });
  }

  pin(caller: SignedIn, where: Where, messageId: string) {
    return this.post(caller, 'pin', where, messageId);
  }

  unpin(caller: SignedIn, where: Where, messageId: string) {
    return this.post(caller, 'unpin', where, messageId);
  }

  pinned(caller: SignedIn, where: Where): Promise<Reply> {
    return this.api().get(`/api/v1/messages/pinned?${query(where)}`, bearer(caller));
  }

  history(caller: SignedIn, where: Where, extra = ''): Promise<Reply> {
    return this.api().get(`/api/v1/messages?${query(where)}&page_size=200${extra}`, bearer(caller));
  }

  /** The caller's history as a map of message id to message. */
  async byId(caller: SignedIn, where: Where): Promise<Map<string, Json>> {
    const messages = expectOk(await this.history(caller, where)).messages as Json[];
    return new Map(messages.map((message) => [message.id as string, message]));
  }

  private post(
    caller: SignedIn,
    action: string,
    where: Where,
    messageId: string,
    extra: Record<string, unknown> = {},
  ): Promise<Reply> {
    return this.api().post(
      `/api/v1/messages/${action}`,
      { ...where, message_id: messageId, ...extra },
      bearer(caller),
    );
  }
}

const query = (where: Where) =>
  Object.entries(where)
    .map(([key, value]) => `${key}=${encodeURIComponent(value)}`)
    .join('&');
