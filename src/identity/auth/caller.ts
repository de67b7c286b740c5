/**
 * The authenticated caller of an RPC: identity always comes from a verified token or session
 * cookie, never from a header the client chose.
 */
import { createContextKey } from '@connectrpc/connect';
import type { HandlerContext } from '@connectrpc/connect';
import { unauthenticated } from '../../platform/errors/api-error.js';

export interface Caller {
  /** Lowercase wallet address: the account. */
  readonly address: string;
  readonly sessionId: string;
  /** How the call was authenticated. */
  readonly via: 'bearer' | 'cookie';
  /** The access token's id and expiry (Bearer calls only): what a logout deny-lists. */
  readonly accessToken?: { readonly id: string; readonly expiresAt: Date };
}

export const callerKey = createContextKey<Caller | undefined>(undefined, {
  description: 'authenticated caller',
});

/** The caller, for RPCs that require authentication (the middleware has already enforced it). */
export function requireCaller(context: HandlerContext): Caller {
  const caller = context.values.get(callerKey);
  if (!caller) throw unauthenticated('Authentication required');
  return caller;
}

/** The caller if the (public) RPC was called with credentials. */
export const optionalCaller = (context: HandlerContext): Caller | undefined =>
  context.values.get(callerKey);
