/**
 * Invite codes: 128 random bits (22 URL-safe characters), optional expiry and use count,
 * revocable. Using one is one conditional update (not revoked, not expired, a use left), so
 * a code with one use left admits one of any number of concurrent joiners.
 */
import { createHash, randomBytes } from 'node:crypto';
import { gone, invalidArgument, notFound, permissionDenied } from '../platform/errors/api-error.js';
import type { Collection, DocumentStore } from '../platform/store/document-store.js';
import { GROUP_INVITES } from './group-invite.js';
import type { GroupInvite } from './group-invite.js';
import type { GroupRemovals } from './group-removals.js';

const MAX_USES = 1000;
const MIN_LIFETIME_SECONDS = 60;
const MAX_LIFETIME_SECONDS = 2_592_000;
const DEFAULT_LIFETIME_SECONDS = 604_800;
const KEPT_AFTER_EXPIRY_MS = 24 * 60 * 60 * 1000;
const INVITE_CODE = /^[A-Za-z0-9_-]{22}$/;

const hashOf = (code: string) => createHash('sha256').update(code).digest('base64url');

export interface NewInvite {
  readonly code: string;
  readonly invite: GroupInvite;
}

export class GroupInvites {
  readonly invites: Collection<GroupInvite>;

  constructor(
    store: DocumentStore,
    private readonly removals: GroupRemovals,
  ) {
    this.invites = store.collection<GroupInvite>(GROUP_INVITES);
  }

  async create(
    groupId: string,
    createdBy: string,
    maxUses: number,
    expiresInSeconds: number,
  ): Promise<NewInvite> {
    if (maxUses > MAX_USES)
      throw invalidArgument(`max_uses must be at most ${MAX_USES} (0: unlimited)`);
    if (
      expiresInSeconds !== 0 &&
      (expiresInSeconds < MIN_LIFETIME_SECONDS || expiresInSeconds > MAX_LIFETIME_SECONDS)
    ) {
      throw invalidArgument(
        `expires_in_seconds must be 0 or between ${MIN_LIFETIME_SECONDS} and ${MAX_LIFETIME_SECONDS}`,
      );
    }
    const code = randomBytes(16).toString('base64url');
    const createdAt = new Date();
    const expiresAt = new Date(
      createdAt.getTime() + (expiresInSeconds || DEFAULT_LIFETIME_SECONDS) * 1000,
    );
    const invite: GroupInvite = {
      _id: hashOf(code),
      groupId,
      createdBy,
      createdAt,
      expiresAt,
      maxUses,
      remainingUses: maxUses,
      revokedAt: null,
      purgeAt: new Date(expiresAt.getTime() + KEPT_AFTER_EXPIRY_MS),
    };
    await this.invites.insertOne(invite);
    return { code, invite };
  }

  /** Revokes one of the group's codes (again: no change); 404 when it is not the group's. */
  async revoke(groupId: string, code: string): Promise<void> {
    if (!INVITE_CODE.test(code)) throw notFound('No such invite code in this group');
    const invite = { _id: hashOf(code), groupId };
    await this.invites.updateOne(
      { ...invite, revokedAt: null },
      { $set: { revokedAt: new Date() } },
    );
    if (!(await this.invites.findOne(invite))) throw notFound('No such invite code in this group');
  }

  /** An existing code that was not revoked: 404 otherwise. */
  async find(code: string): Promise<GroupInvite> {
    const invite = INVITE_CODE.test(code)
      ? await this.invites.findOne({ _id: hashOf(code) })
      : null;
    if (!invite || invite.revokedAt) throw notFound('Unknown or revoked invite code');
    return invite;
  }

  /** Whether the code admits `joiner` now (without using it): 410 or 403 otherwise. */
  async check(invite: GroupInvite, joiner: string): Promise<void> {
    if (invite.expiresAt <= new Date()) throw gone('This invite code has expired');
    if (invite.maxUses > 0 && invite.remainingUses <= 0)
      throw gone('This invite code has been used up');
    const removedAt = await this.removals.removedAt(invite.groupId, joiner);
    if (removedAt && invite.createdAt <= removedAt)
      throw permissionDenied(
        'You were removed from this group after this code was made; ask for a new one',
      );
  }

  /** Takes one use of the code; 410 when another joiner took the last one first. */
  async use(invite: GroupInvite): Promise<void> {
    if (invite.maxUses === 0) return;
    const taken = await this.invites.updateOne(
      {
        _id: invite._id,
        revokedAt: null,
        expiresAt: { $gt: new Date() },
        remainingUses: { $gt: 0 },
      },
      { $inc: { remainingUses: -1 } },
    );
    if (taken.modifiedCount === 0) throw gone('This invite code has been used up');
  }

  /** Gives back a use taken for a join that then failed (the group was full). */
  async giveBack(invite: GroupInvite): Promise<void> {
    if (invite.maxUses > 0)
      await this.invites.updateOne({ _id: invite._id }, { $inc: { remainingUses: 1 } });
  }
}
