/**
 * The shape of a message's `mentions` (messages.proto): members' wallet addresses and
 * `@everyone`, at most MAX_MENTIONS. Who may be mentioned is checked where the members are
 * known (relations/send-relations.ts for groups, the channels area for channels).
 */
import { invalidArgument } from '../../platform/errors/api-error.js';

/** The mention of every member, for owners and admins. */
export const EVERYONE = '@everyone';
/** Mentions per message: enough for a roll call, not a way to address a whole group one by one. */
export const MAX_MENTIONS = 50;

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** At most MAX_MENTIONS, each an address or `@everyone`: lowercased, once each; else 400. */
export function parseMentions(mentions: readonly string[]): string[] {
  if (mentions.length > MAX_MENTIONS)
    throw invalidArgument(`mentions may have at most ${MAX_MENTIONS} entries`);
  for (const mention of mentions)
    if (mention !== EVERYONE && !ADDRESS.test(mention))
      throw invalidArgument('mentions must be wallet addresses or @everyone');
  return [...new Set(mentions.map((mention) => mention.toLowerCase()))];
}
