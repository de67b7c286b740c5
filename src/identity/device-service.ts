/** DeviceService: the caller's registered devices and their push tokens (device.proto). */
import { randomBytes } from 'node:crypto';
import type { HandlerContext } from '@connectrpc/connect';
import type { DeleteDeviceRequest, ListDevicesRequest, RegisterDeviceRequest } from '../gen/service/v1/device_pb.js';
import { decodeCursor, encodeCursor, pageSize } from '../platform/api/page-cursor.js';
import { invalidArgument, notFound } from '../platform/errors/api-error.js';
import type { DocumentStore, StoreFilter } from '../platform/store/document-store.js';
import { requireCaller } from './auth/caller.js';
import { DEVICES, PLATFORMS } from './devices/device.js';
import type { Device } from './devices/device.js';

const view = (device: Device) => ({
  id: device._id,
  name: device.name,
  platform: device.platform,
  ...(device.pushToken === null ? {} : { pushToken: device.pushToken }),
  createdAt: device.createdAt.toISOString(),
  lastSeenAt: device.lastSeenAt.toISOString(),
});

export function createDeviceService(store: DocumentStore) {
  const devices = store.collection<Device>(DEVICES);

  return {
    async registerDevice(request: RegisterDeviceRequest, context: HandlerContext) {
      const caller = requireCaller(context);
      if (request.name.trim() === '' || request.name.length > 64) throw invalidArgument('name must have 1 to 64 characters');
      if (!PLATFORMS.includes(request.platform as Device['platform'])) throw invalidArgument(`platform must be one of ${PLATFORMS.join(', ')}`);
      if ((request.pushToken?.length ?? 0) > 4096) throw invalidArgument('push_token has at most 4096 characters');
      const pushToken = request.pushToken || null;
      if (pushToken) await devices.updateMany({ address: caller.address, pushToken }, { $set: { pushToken: null } });
      const now = new Date();
      const fields = { name: request.name, platform: request.platform as Device['platform'], pushToken, lastSeenAt: now };
      if (request.deviceId !== '') {
        const updated = await devices.findOneAndUpdate({ _id: request.deviceId, address: caller.address }, { $set: fields }, { returnDocument: 'after' });
        if (!updated) throw notFound('No such device');
        return { success: true, message: 'Device updated', device: view(updated), created: false };
      }
      const device: Device = { _id: randomBytes(12).toString('hex'), address: caller.address, createdAt: now, ...fields };
      await devices.insertOne(device);
      return { success: true, message: 'Device registered', device: view(device), created: true };
    },

    async listDevices(request: ListDevicesRequest, context: HandlerContext) {
      const caller = requireCaller(context);
      const limit = pageSize(request.pageSize);
      const after = decodeCursor(request.cursor);
      const filter: StoreFilter<Device> = after
        ? {
            address: caller.address,
            $or: [{ lastSeenAt: { $lt: new Date(after.sortValue) } }, { lastSeenAt: new Date(after.sortValue), _id: { $gt: after.id } }],
          }
        : { address: caller.address };
      const page = await devices.find(filter, { sort: { lastSeenAt: -1, _id: 1 }, limit: limit + 1 });
      const items = page.slice(0, limit);
      const last = items[items.length - 1];
      const nextCursor = page.length > limit && last ? encodeCursor({ sortValue: last.lastSeenAt.getTime(), id: last._id }) : '';
      return { success: true, message: `${items.length} devices`, devices: items.map(view), nextCursor };
    },

    async deleteDevice(request: DeleteDeviceRequest, context: HandlerContext) {
      const caller = requireCaller(context);
      const { deletedCount } = await devices.deleteOne({ _id: request.id, address: caller.address });
      if (deletedCount === 0) throw notFound('No such device');
      return { success: true, message: 'Device removed' };
    },
  };
}
