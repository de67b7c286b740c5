/**
 * A browser's Web Push subscription (`push_subscriptions`), owned by the session (device) that
 * subscribed it: ending the session removes it, and pushes skip it while that session has a
 * live /ws connection. Its id is derived from the endpoint, so one endpoint is one record: a
 * second subscribe updates it (and moves it to the new caller) instead of adding a duplicate.
 */
import { createHash } from 'node:crypto';
import type { IndexSpec } from '../../platform/store/document-store.js';

export interface PushSubscriptionRecord {
  /** base64url SHA-256 of the endpoint: the subscription id clients see. */
  _id: string;
  endpoint: string;
  /** The account (wallet address) and the session that subscribed. */
  address: string;
  sessionId: string;
  /** base64url, as the browser gave them. */
  p256dh: string;
  auth: string;
  createdAt: Date;
  updatedAt: Date;
}

export const PUSH_SUBSCRIPTIONS = 'push_subscriptions';

export const subscriptionIdOf = (endpoint: string): string =>
  createHash('sha256').update(endpoint).digest('base64url');

export const pushSubscriptionIndexes: IndexSpec[] = [
  { collection: PUSH_SUBSCRIPTIONS, name: 'address_updated', key: { address: 1, updatedAt: 1 } },
  { collection: PUSH_SUBSCRIPTIONS, name: 'session', key: { sessionId: 1 } },
];
