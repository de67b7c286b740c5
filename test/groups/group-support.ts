/** Group calls over REST shared by the group test files. */
import type { Api } from '../support/session-api.js';
import type { Reply } from '../support/session-api.js';
import { expectFailure, expectOk } from '../support/session-api.js';
import { bearer } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import type { Json } from '../support/json.js';

export const addressOf = (session: SignedIn) => session.user.address.toLowerCase();
export const b64 = (text: string) => Buffer.from(text).toString('base64');

/** A cell of the role table: 200 with the success envelope (its body returned), or 403/404 with the failure envelope. */
export function expectOutcome(reply: Reply, status: 200 | 403 | 404): Json {
  if (status === 200) return expectOk(reply);
  expectFailure(reply, status, status === 403 ? 'FORBIDDEN' : 'NOT_FOUND');
  return undefined;
}

let idCounter = 0;
export const newMessageId = () => `g-${Date.now()}-${++idCounter}`;

export class GroupCalls {
  constructor(private readonly api: () => Api) {}

  /** Creates a group owned by `owner` with `members`; answers its id. */
  async create(owner: SignedIn, members: SignedIn[], name = 'Team'): Promise<string> {
    const body = expectOk(
      await this.api().post(
        '/api/v1/groups/create',
        { name, member_addresses: members.map((member) => member.user.address) },
        bearer(owner),
      ),
    );
    return body.group.id as string;
  }

  invite(
    caller: SignedIn,
    groupId: string,
    options: { max_uses?: number; expires_in_seconds?: number } = {},
  ) {
    return this.api().post(`/api/v1/groups/${groupId}/invites`, options, bearer(caller));
  }

  async inviteCode(
    caller: SignedIn,
    groupId: string,
    options: { max_uses?: number; expires_in_seconds?: number } = {},
  ): Promise<string> {
    return expectOk(await this.invite(caller, groupId, options)).invite_code as string;
  }

  join(caller: SignedIn, code: string) {
    return this.api().post(`/api/v1/groups/join/${code}`, {}, bearer(caller));
  }

  get(caller: SignedIn, groupId: string) {
    return this.api().get(`/api/v1/groups/${groupId}`, bearer(caller));
  }

  send(from: SignedIn, groupId: string, text: string, clientMessageId = newMessageId()) {
    return this.api().post(
      '/api/v1/send',
      { client_message_id: clientMessageId, group_id: groupId, ciphertext: b64(text) },
      bearer(from),
    );
  }

  history(viewer: SignedIn, groupId: string, query = '') {
    return this.api().get(`/api/v1/messages?group_id=${groupId}${query}`, bearer(viewer));
  }

  promote(caller: SignedIn, groupId: string, address: string) {
    return this.api().post(
      `/api/v1/groups/${groupId}/members/${address}/promote`,
      {},
      bearer(caller),
    );
  }

  demote(caller: SignedIn, groupId: string, address: string) {
    return this.api().post(
      `/api/v1/groups/${groupId}/members/${address}/demote`,
      {},
      bearer(caller),
    );
  }

  remove(caller: SignedIn, groupId: string, address: string) {
    return this.api().delete(`/api/v1/groups/${groupId}/members/${address}`, bearer(caller));
  }

  rename(caller: SignedIn, groupId: string, name: string) {
    return this.api().post(`/api/v1/groups/${groupId}/rename`, { name }, bearer(caller));
  }

  leave(caller: SignedIn, groupId: string) {
    return this.api().post(`/api/v1/groups/${groupId}/leave`, {}, bearer(caller));
  }
}
