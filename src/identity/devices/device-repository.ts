/** The devices of accounts in storage; a push token belongs to one device at a time. */
import type { CursorPosition } from '../../platform/api/page-cursor.js';
import type { Collection, DocumentStore } from '../../platform/store/document-store.js';
import { newestFirstPage } from '../../platform/store/newest-first-page.js';
import type { NewestFirstPage } from '../../platform/store/newest-first-page.js';
import { DEVICES } from './device.js';
import type { Device } from './device.js';

export type DeviceFields = Pick<Device, 'name' | 'platform' | 'pushToken' | 'lastSeenAt'>;

export class DeviceRepository {
  private readonly devices: Collection<Device>;

  constructor(store: DocumentStore) {
    this.devices = store.collection<Device>(DEVICES);
  }

  /** Takes the push token away from the account's other devices, before a device claims it. */
  async releasePushToken(address: string, pushToken: string): Promise<void> {
    await this.devices.updateMany({ address, pushToken }, { $set: { pushToken: null } });
  }

  async insert(device: Device): Promise<void> {
    await this.devices.insertOne(device);
  }

  /** The device after the update; null when the account has no such device. */
  update(address: string, deviceId: string, fields: DeviceFields): Promise<Device | null> {
    return this.devices.findOneAndUpdate({ _id: deviceId, address }, { $set: fields }, { returnDocument: 'after' });
  }

  /** The account's devices, most recently seen first. */
  list(address: string, limit: number, after: CursorPosition | undefined): Promise<NewestFirstPage<Device>> {
    return newestFirstPage(this.devices, { address }, 'lastSeenAt', limit, after);
  }

  /** False when the account has no such device. */
  async remove(address: string, deviceId: string): Promise<boolean> {
    const { deletedCount } = await this.devices.deleteOne({ _id: deviceId, address });
    return deletedCount > 0;
  }
}
