/**
 * The groups area of an api process: groups, their roles and invite codes, on the messaging
 * core. A group is a conversation (`group:<id>`) whose members are conversation member records,
 * and whose membership changes are system messages sent through messaging's MessageSender, so
 * group messages need nothing of their own: they are sent, numbered, delivered and paged by the
 * messaging area. What it uses comes in: the conversations and the sender of messaging, media's
 * held avatars and message attachments (released when a group ends), contacts' blocks and its
 * settings section.
 */
import type { BlockList } from '../contacts/block-list.js';
import type { GroupSettings } from '../platform/config/settings.js';
import type { Logger } from '../platform/logging/logger.js';
import type { OutageLog } from '../platform/logging/outage-log.js';
import type { DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import type { Conversations } from '../messaging/conversations/conversations.js';
import type { MediaAttachments } from '../messaging/messages/media-attachments.js';
import type { MessageSender } from '../messaging/messages/message-sender.js';
import { groupIndexes } from './group.js';
import type { GroupAvatars } from './group-avatars.js';
import { groupAccountData } from './group-account-data.js';
import { GroupCreation } from './group-creation.js';
import { groupCreationResumer } from './group-creation-resumer.js';
import { groupInviteIndexes } from './group-invite.js';
import { GroupInvites } from './group-invites.js';
import { groupRemovalIndexes } from './group-removals.js';
import { Groups } from './groups.js';
import { createGroupsService } from './groups-service.js';
import { Memberships } from './memberships.js';

export interface GroupsDependencies {
  readonly settings: GroupSettings;
  readonly store: DocumentStore;
  readonly conversations: Conversations;
  readonly sender: MessageSender;
  readonly avatars: GroupAvatars;
  /** The media of the group's messages, released when the group ends. */
  readonly messageMedia: MediaAttachments;
  readonly blocks: BlockList;
  readonly logger: Logger;
  readonly outages: OutageLog;
}

/** Every index of the groups area (created at start, and by the ensure-indexes command before a rollout). */
export const groupsIndexes: IndexSpec[] = [
  ...groupIndexes,
  ...groupInviteIndexes,
  ...groupRemovalIndexes,
];

export async function createGroupsArea(deps: GroupsDependencies) {
  const { store, conversations } = deps;
  await store.ensureIndexes(groupsIndexes);
  const memberships = new Memberships(
    store,
    conversations,
    deps.sender,
    deps.avatars,
    deps.messageMedia,
    deps.settings.maxMembers,
  );
  const invites = new GroupInvites(store, memberships.removals);
  const { maxMembers, creationFaultExitAfterStep } = deps.settings;
  const creation = new GroupCreation(
    memberships.groups,
    conversations,
    deps.sender,
    deps.avatars,
    maxMembers,
    creationFaultExitAfterStep,
  );
  const groups = new Groups(conversations, memberships, invites, deps.blocks, creation);
  return {
    service: createGroupsService({ groups, memberships, invites }),
    /** Finishes creations a crash cut off, at start and periodically. */
    creationResumer: groupCreationResumer(creation, deps.logger, deps.outages),
    accountData: groupAccountData(conversations, memberships, invites),
  };
}
