/** The devices of accounts in storage; a push token belongs to one device at a time. */
import type { CursorPosition } from '../../platform/api/page-cursor.js';
import type { Collection, DocumentStore } from '../../platform/store/document-store.js';
import { DuplicateKeyError } from '../../platform/store/document-store.js';
import { newestFirstPage } from '../../platform/store/newest-first-page.js';
import type { NewestFirstPage } from '../../platform/store/newest-first-page.js';
import { DEVICES } from './device.js';
import type { Device } from './device.js';

/** Registrations racing for one push token: each takes it from the holder, at most this often. */
const PUSH_TOKEN_ATTEMPTS = 5;

export type DeviceFields = Pick<Device, 'name' | 'platform' | 'pushToken' | 'lastSeenAt'>;

export class DeviceRepository {
  private readonly devices: Collection<Device>;

  constructor(store: DocumentStore) {
    this.devices = store.collection<Device>(DEVICES);
  }

  /**
   * Runs `save` (which writes `pushToken` onto the caller's device) after taking the token from
   * whichever device holds it, whoever's: a push token names an app install, so when it is
   * registered again the install has changed hands (or its account), and the former device must
   * stop receiving notifications meant for the new holder. The reply is the same whether the
   * token was held or not, so it reveals nothing about other accounts. A registration racing
   * another for the same token meets the unique index and takes the token again.
   */
  async withPushTokenMoved<R>(pushToken: string | null, save: () => Promise<R>): Promise<R> {
    for (let attempt = 1; ; attempt++) {
      if (pushToken) await this.devices.updateMany({ pushToken }, { $set: { pushToken: null } });
      try {
        return await save();
      } catch (error) {
        if (!(error instanceof DuplicateKeyError) || attempt === PUSH_TOKEN_ATTEMPTS) throw error;
      }
    }
  }

  async insert(device: Device): Promise<void> {
    await this.devices.insertOne(device);
  }

  /** The device after the update; null when the account has no such device. */
  update(address: string, deviceId: string, fields: DeviceFields): Promise<Device | null> {
    return this.devices.findOneAndUpdate(
      { _id: deviceId, address },
      { $set: fields },
      { returnDocument: 'after' },
    );
  }

  /** The account's devices, most recently seen first. */
  list(
    address: string,
    limit: number,
    after: CursorPosition | undefined,
  ): Promise<NewestFirstPage<Device>> {
    return newestFirstPage(this.devices, { address }, 'lastSeenAt', limit, after);
  }

  /** False when the account has no such device. */
  async remove(address: string, deviceId: string): Promise<boolean> {
    const { deletedCount } = await this.devices.deleteOne({ _id: deviceId, address });
    return deletedCount > 0;
  }

  /** Re-keys the account's devices to its new address (recovery): they keep their push tokens. */
  async moveAll(from: string, to: string): Promise<void> {
    await this.devices.updateMany({ address: from }, { $set: { address: to } });
  }

  async removeAll(address: string): Promise<void> {
    await this.devices.deleteMany({ address });
  }
}
