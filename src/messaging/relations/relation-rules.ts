/**
 * Who may do what to a message, and the bounds of it (messages.proto documents each): pure
 * functions over a RelationTarget, the same for direct chats, groups and channels.
 */
import {
  conflict,
  gone,
  invalidArgument,
  permissionDenied,
} from '../../platform/errors/api-error.js';
import type { RelationTarget } from '../conversations/relation-target.js';

/** Edits per message (Signal allows 10 within a day; 20 leaves room for typo fixes). */
export const MAX_EDITS = 20;
/** Pins per conversation (Signal: a handful; a bounded list stays one small read). */
export const MAX_PINS = 10;
/** An encrypted reaction carries one emoji and a little client data. */
export const MAX_REACTION_CIPHERTEXT_BYTES = 1024;
/** Distinct reaction keys one reader may put on one channel post. */
export const MAX_REACTION_KEYS = 3;
/** A channel reaction key: one emoji sequence, at most this many bytes of UTF-8. */
export const MAX_REACTION_KEY_BYTES = 32;

/** Kinds whose content is not the sender's own text to correct: edits are refused. */
const UNEDITABLE_KINDS = new Set(['system', 'poll', 'sticker']);

const isStaff = (target: RelationTarget) =>
  target.callerRole === 'owner' || target.callerRole === 'admin';

/** An edit by `caller` now: the sender, within the window, an editable kind, under the limit. */
export function checkEditable(
  target: RelationTarget,
  caller: string,
  now: Date,
  windowMs: number,
): void {
  if (UNEDITABLE_KINDS.has(target.kind) || target.viewOnce)
    throw invalidArgument(
      `A ${target.viewOnce ? 'view-once' : target.kind} message cannot be edited`,
    );
  if (target.deleted) throw gone('The message was deleted');
  if (target.senderAddress !== caller) throw permissionDenied('Only the sender may edit a message');
  if (now.getTime() - target.sentAt.getTime() > windowMs)
    throw permissionDenied('The edit window of this message has passed', 'EDIT_WINDOW_PASSED');
  if (target.editCount >= MAX_EDITS)
    throw permissionDenied(`A message can be edited ${MAX_EDITS} times`, 'EDIT_LIMIT_REACHED');
}

/**
 * A deletion for everyone by `caller` now: answers as whom (`sender` within its window,
 * `admin` for a group's or channel's owner or admins at any time), or refuses.
 */
export function deleterOf(
  target: RelationTarget,
  caller: string,
  now: Date,
  windowMs: number,
): 'sender' | 'admin' {
  if (target.kind === 'system') throw invalidArgument('A system message cannot be deleted');
  const inWindow = now.getTime() - target.sentAt.getTime() <= windowMs;
  if (target.senderAddress === caller && inWindow) return 'sender';
  if (target.type !== 'direct' && isStaff(target)) return 'admin';
  if (target.senderAddress === caller)
    throw permissionDenied('The delete window of this message has passed', 'DELETE_WINDOW_PASSED');
  throw permissionDenied('Only the sender, or an owner or admin, may delete this message');
}

/** Reacting and pinning need a live message with content of its own. */
export function checkActionable(target: RelationTarget, action: 'react to' | 'pin'): void {
  if (target.kind === 'system') throw invalidArgument(`A system message cannot be ${action}ed`);
  if (target.viewOnce) throw invalidArgument(`A view-once message cannot be ${action}ed`);
  if (target.deleted) throw gone('The message was deleted');
}

/** Pins: either participant of a direct chat; owners and admins (or members if allowed) elsewhere. */
export function checkMayPin(target: RelationTarget): void {
  if (target.type === 'direct' || isStaff(target)) return;
  if (target.type === 'group' && target.membersCanPin) return;
  throw permissionDenied('Your role may not pin messages here');
}

export const pinLimitReached = () =>
  conflict(`A conversation has at most ${MAX_PINS} pinned messages`, 'PIN_LIMIT');

const SEGMENTER = new Intl.Segmenter('en', { granularity: 'grapheme' });
const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\p{Emoji_Presentation}/u;

/** One grapheme cluster that is an emoji, at most MAX_REACTION_KEY_BYTES of UTF-8. */
export function isReactionKey(key: string): boolean {
  if (key === '' || Buffer.byteLength(key, 'utf8') > MAX_REACTION_KEY_BYTES) return false;
  const graphemes = [...SEGMENTER.segment(key)];
  return graphemes.length === 1 && EMOJI.test(key) && !/[\s\p{Cc}]/u.test(key);
}
