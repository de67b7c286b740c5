/**
 * Sender keys kept per group in the KeyStore: this device's own (with the members it was sent
 * to) and every other member's. A new own key is made when a member who held the current one is
 * no longer in the group, so a removed member cannot read what follows.
 */
import { E2eeError } from './e2ee-error.js';
import type { StateRecords } from './key-store.js';
import {
  distributionOf,
  newSenderKey,
  receivedFrom,
  senderKeyDecrypt,
  senderKeyEncrypt,
  senderKeyIdOf,
} from './sender-keys.js';
import type { OwnSenderKey, ReceivedSenderKey, SenderKeyDistribution } from './sender-keys.js';

interface OwnGroupKey {
  key: OwnSenderKey;
  /** The members (lowercase addresses) the current key was distributed to. */
  holders: string[];
}

const ownKey = (groupId: string) => `own-sender-key:${groupId}`;
const memberKey = (groupId: string, sender: string) =>
  `sender-key:${groupId}:${sender.toLowerCase()}`;

export class GroupSessions {
  constructor(
    private readonly records: StateRecords,
    private readonly self: string,
  ) {}

  /**
   * Encrypts `plaintext` for `groupId`, first calling `distribute` for every member of `members`
   * that does not hold the current key (each recorded as soon as it was sent).
   */
  async encrypt(
    groupId: string,
    members: readonly string[],
    plaintext: Uint8Array,
    distribute: (member: string, distribution: SenderKeyDistribution) => Promise<void>,
  ): Promise<Uint8Array> {
    const current = new Set(members.map((member) => member.toLowerCase()));
    current.delete(this.self);
    let own = await this.records.load<OwnGroupKey>(ownKey(groupId));
    if (!own || own.holders.some((holder) => !current.has(holder)))
      own = { key: newSenderKey(), holders: [] };
    for (const member of current) {
      if (own.holders.includes(member)) continue;
      await distribute(member, distributionOf(groupId, own.key));
      own = { ...own, holders: [...own.holders, member] };
      await this.records.save(ownKey(groupId), own);
    }
    const { key, message } = senderKeyEncrypt(own.key, groupId, this.self, plaintext);
    await this.records.save(ownKey(groupId), { ...own, key });
    return message;
  }

  /**
   * Keeps a member's sender key received over a 1:1 session with `sender`. A repeat of the key
   * already held is ignored: taking it again would rewind its chain and reopen used message keys.
   */
  async receiveDistribution(sender: string, distribution: SenderKeyDistribution): Promise<void> {
    const key = memberKey(distribution.groupId, sender);
    const stored = await this.records.load<ReceivedSenderKey>(key);
    if (stored?.keyId === distribution.keyId) return;
    await this.records.save(key, receivedFrom(distribution));
  }

  async decrypt(groupId: string, sender: string, message: Uint8Array): Promise<Uint8Array> {
    const stored = await this.records.load<ReceivedSenderKey>(memberKey(groupId, sender));
    if (!stored || stored.keyId !== senderKeyIdOf(message))
      throw new E2eeError('NO_SESSION', `no sender key of ${sender} for this message yet`);
    const { key, plaintext } = senderKeyDecrypt(stored, groupId, sender, message);
    await this.records.save(memberKey(groupId, sender), key);
    return plaintext;
  }
}
