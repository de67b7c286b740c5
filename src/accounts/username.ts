/**
 * Username rules (documented on AuthService.CheckUsername): 3 to 32 characters of a-z, 0-9 and
 * underscore, starting with a letter. Uniqueness is case-insensitive because names are stored
 * lowercased.
 */
export const USERNAME_MAX_INPUT = 64;
const USERNAME = /^[a-z][a-z0-9_]{2,31}$/;

/** Names kept by the service, so that nobody can pose as it. */
const RESERVED = new Set([
  'admin',
  'administrator',
  'root',
  'system',
  'service',
  'support',
  'security',
  'moderator',
  'official',
  'help',
  'staff',
]);

export const isReservedUsername = (username: string): boolean => RESERVED.has(username);

export type UsernameCheck =
  { valid: true; username: string } | { valid: false; username: string; reason: string };

/** Checks the rules on the name as it would be stored: trimmed and lowercased. */
export function checkUsername(input: string): UsernameCheck {
  const username = input.trim().toLowerCase();
  if (username.length < 3)
    return { valid: false, username, reason: 'A username has at least 3 characters' };
  if (username.length > 32)
    return { valid: false, username, reason: 'A username has at most 32 characters' };
  if (!/^[a-z]/.test(username))
    return { valid: false, username, reason: 'A username starts with a letter' };
  if (!USERNAME.test(username)) {
    return {
      valid: false,
      username,
      reason: 'A username has only letters a-z, digits and underscores',
    };
  }
  return { valid: true, username };
}
