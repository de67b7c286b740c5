import type { IndexSpec } from '../../platform/store/document-store.js';

/**
 * A signed-in device. One refresh-token family belongs to each session (the family id is the
 * session id), so ending the session revokes the family.
 */
export interface Session {
  /** Random, 128 bits, base64url. */
  _id: string;
  address: string;
  authMethod: 'wallet' | 'phone';
  deviceName: string;
  userAgent: string;
  /** The client address at sign-in, kept only in masked form (`203.0.113.*`, `2001:db8:85a3:*`). */
  ip: string;
  createdAt: Date;
  lastActiveAt: Date;
  /** Sliding: reset to now + SERVICE_SESSION_TTL on activity. After the end, when the record goes. */
  expiresAt: Date;
  endedAt: Date | null;
  endReason: string | null;
  /** SHA-256 (hex) of the secret half of the session cookie. */
  cookieSecretHash: string;
  /** SHA-256 (hex) of the current CSRF token. */
  csrfTokenHash: string;
  /** RFC 7638 thumbprint of the key the refresh family is bound to (DPoP), if any. */
  dpopJkt: string | null;
}

export const SESSIONS = 'sessions';

export const sessionIndexes: IndexSpec[] = [
  { collection: SESSIONS, name: 'by_address', key: { address: 1, lastActiveAt: -1 } },
  // The sessions ended lately, whose marks are copied back to shared state after a Redis loss.
  { collection: SESSIONS, name: 'by_end', key: { endedAt: 1 } },
  // Active sessions expire with their sliding window; ended ones are kept a day for support.
  { collection: SESSIONS, name: 'expiry', key: { expiresAt: 1 }, expireAfterSeconds: 0 },
];

/** Masks an address for storage and display: enough to recognise a network, not a person. */
export function maskIp(ip: string): string {
  if (ip.includes('.')) return ip.replace(/\.\d+$/, '.*');
  // A compressed address that starts with zeros (`::1`) has no network groups to show.
  if (ip.startsWith('::')) return '::*';
  return `${ip.split(':').slice(0, 3).join(':')}:*`;
}
