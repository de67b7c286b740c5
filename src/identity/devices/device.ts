import type { IndexSpec } from '../../platform/store/document-store.js';

/** A device an account registered, with the platform push token it receives notifications on. */
export interface Device {
  _id: string;
  address: string;
  name: string;
  platform: 'ios' | 'android' | 'web' | 'desktop';
  pushToken: string | null;
  createdAt: Date;
  lastSeenAt: Date;
}

export const DEVICES = 'devices';
export const PLATFORMS: readonly Device['platform'][] = ['ios', 'android', 'web', 'desktop'];

export const deviceIndexes: IndexSpec[] = [
  { collection: DEVICES, name: 'by_address', key: { address: 1, lastSeenAt: -1 } },
  // A push token reaches one device only; partial, because most devices have none.
  {
    collection: DEVICES,
    name: 'push_token_unique',
    key: { pushToken: 1 },
    unique: true,
    partialFilterExpression: { pushToken: { $type: 'string' } },
  },
];
