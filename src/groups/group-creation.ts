/**
 * Writing a new group, safe against a crash at any point. A group is several records (the group,
 * its conversation, one member record per member, the `group_created` message, and the hold on
 * its picture), which no single write can make. So the group record is written first and carries
 * what is still to do (`pendingMembers`, `creationCheckAt`); every later step can be repeated;
 * and the last step clears the marker. A creation cut off by a crash (kill -9, a lost store
 * connection) is finished by `resumeDue`, which every api pod runs at start and then
 * periodically (group-creation-resumer.ts): the group ends up whole, never as a chat entry
 * without its group or a group without its owner's membership.
 *
 * A creation normally takes milliseconds; `resumeDue` only takes creations older than
 * RESUME_AFTER_MS, claimed by a conditional write, so two pods never resume the same one and a
 * live creation is not raced.
 */
import { Code, ConnectError } from '@connectrpc/connect';
import { conflict } from '../platform/errors/api-error.js';
import type { Collection } from '../platform/store/document-store.js';
import { DuplicateKeyError } from '../platform/store/document-store.js';
import type { Conversations } from '../messaging/conversations/conversations.js';
import type { MessageSender } from '../messaging/messages/message-sender.js';
import type { GroupRecord } from './group.js';
import type { GroupAvatars } from './group-avatars.js';
import { groupTarget, newMember } from './memberships.js';
import type { GroupMember } from './memberships.js';

/** A creation still marked this long after its start was cut off: it is resumed. */
export const RESUME_AFTER_MS = 10_000;
const RESUME_BATCH = 100;
/** Later than any check, to ask for the earliest one. */
const END_OF_TIME = new Date(8.64e15);

/** The steps of a creation, in order; GROUP_CREATION_FAULT_EXIT_AFTER counts them from the record (1). */
const STEPS = ['record', 'avatar', 'conversation', 'members', 'group_created'] as const;
type Step = (typeof STEPS)[number];

/** A group record as written by `create`, before its creation finished. */
type CreatingGroup = GroupRecord &
  Required<Pick<GroupRecord, 'pendingMembers' | 'creationCheckAt'>>;

export class GroupCreation {
  constructor(
    private readonly groups: Collection<GroupRecord>,
    private readonly conversations: Conversations,
    private readonly sender: MessageSender,
    private readonly avatars: GroupAvatars,
    private readonly maxMembers: number,
    /** GROUP_CREATION_FAULT_EXIT_AFTER: the process kills itself after this step (1-based; 0: never). Tests only. */
    private readonly faultExitAfterStep: number,
  ) {}

  /** Writes `group` (owner, name, picture) with `memberAddresses` as plain members; answers the member records. */
  async create(group: GroupRecord, memberAddresses: readonly string[]): Promise<GroupMember[]> {
    if (memberAddresses.length + 1 > this.maxMembers)
      throw conflict(`A group has at most ${this.maxMembers} members`);
    const creating: CreatingGroup = {
      ...group,
      memberCount: memberAddresses.length + 1,
      pendingMembers: [...memberAddresses],
      creationCheckAt: new Date(group.createdAt.getTime() + RESUME_AFTER_MS),
    };
    await this.groups.insertOne(creating);
    this.passed('record');
    if (creating.avatarMediaId !== '') {
      try {
        await this.avatars.holdAvatar(creating.ownerAddress, creating.avatarMediaId, {
          kind: 'group',
          id: creating._id,
        });
      } catch (error) {
        // Not the caller's avatar upload (404/400): the request fails and the group never was.
        await this.groups.deleteOne({ _id: creating._id });
        throw error;
      }
    }
    return this.finish(creating);
  }

  /** When the earliest unfinished creation is due for a check (epoch ms), if any is unfinished. */
  async nextCheckAt(): Promise<number | undefined> {
    const [earliest] = await this.groups.find(
      { creationCheckAt: { $lte: END_OF_TIME } },
      { sort: { creationCheckAt: 1 }, limit: 1 },
    );
    return earliest?.creationCheckAt?.getTime();
  }

  /** Finishes the creations cut off more than RESUME_AFTER_MS ago; answers how many it finished. */
  async resumeDue(now = new Date()): Promise<number> {
    const due = (await this.groups.find(
      { creationCheckAt: { $lte: now } },
      { sort: { creationCheckAt: 1 }, limit: RESUME_BATCH },
    )) as CreatingGroup[];
    let resumed = 0;
    for (const group of due) {
      // The claim: the pod whose write moves the check wins; the others skip this group.
      const claimedUntil = new Date(now.getTime() + RESUME_AFTER_MS);
      const claim = await this.groups.updateOne(
        { _id: group._id, creationCheckAt: group.creationCheckAt },
        { $set: { creationCheckAt: claimedUntil } },
      );
      if (claim.modifiedCount !== 1) continue;
      await this.holdAvatarOnResume(group);
      await this.finish(group);
      resumed++;
    }
    return resumed;
  }

  /** The steps after the avatar: each can run again, so a resumption repeats whatever the crash left undone. */
  private async finish(group: CreatingGroup): Promise<GroupMember[]> {
    const { conversationId } = groupTarget(group._id);
    this.passed('avatar');
    await ignoreDuplicate(
      this.conversations.conversations.insertOne({
        _id: conversationId,
        type: 'group',
        lastSequence: 0,
        disappearingTimerSeconds: 0,
        createdAt: group.createdAt,
        title: group.name,
      }),
    );
    this.passed('conversation');
    const members = [
      newMember(group._id, group.ownerAddress, 'owner', group.createdAt, 0),
      ...group.pendingMembers.map((address) =>
        newMember(group._id, address, 'member', group.createdAt, 0),
      ),
    ];
    await this.insertMissing(members);
    this.passed('members');
    // group_created is the conversation's first message: number 1 exists once it was written.
    if ((await this.conversations.find(conversationId))?.lastSequence === 0) {
      await this.sender.appendSystem(groupTarget(group._id), 'group_created', {
        actor_address: group.ownerAddress,
        name: group.name,
        member_addresses: group.pendingMembers,
      });
    }
    this.passed('group_created');
    await this.groups.updateOne(
      { _id: group._id },
      { $unset: { pendingMembers: '', creationCheckAt: '' } },
    );
    return members;
  }

  /** Inserts the member records not written yet (all of them, unless a resumption). */
  private async insertMissing(members: GroupMember[]): Promise<void> {
    const existing = await this.conversations.members.find(
      { _id: { $in: members.map((member) => member._id) } },
      { projection: { _id: 1 } },
    );
    const written = new Set(existing.map((member) => member._id));
    const missing = members.filter((member) => !written.has(member._id));
    if (missing.length === 0) return;
    try {
      await this.conversations.members.insertMany(missing);
    } catch (error) {
      // A creation stalled past RESUME_AFTER_MS and its resumption wrote some of them at once: write the rest.
      if (!(error instanceof DuplicateKeyError)) throw error;
      await this.insertMissing(members);
    }
  }

  /** On a resumption the picture's hold may be missing; an upload gone since then leaves the group without a picture. */
  private async holdAvatarOnResume(group: CreatingGroup): Promise<void> {
    if (group.avatarMediaId === '') return;
    try {
      await this.avatars.holdAvatar(group.ownerAddress, group.avatarMediaId, {
        kind: 'group',
        id: group._id,
      });
    } catch (error) {
      if (!(
        error instanceof ConnectError &&
        (error.code === Code.NotFound || error.code === Code.InvalidArgument)
      ))
        throw error;
      await this.groups.updateOne({ _id: group._id }, { $set: { avatarMediaId: '' } });
      group.avatarMediaId = '';
    }
  }

  private passed(step: Step): void {
    if (this.faultExitAfterStep === STEPS.indexOf(step) + 1) process.kill(process.pid, 'SIGKILL');
  }
}

async function ignoreDuplicate(write: Promise<unknown>): Promise<void> {
  try {
    await write;
  } catch (error) {
    if (!(error instanceof DuplicateKeyError)) throw error;
  }
}
