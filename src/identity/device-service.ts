/** DeviceService: the caller's registered devices and their push tokens (device.proto). */
import { randomBytes } from 'node:crypto';
import type { HandlerContext } from '@connectrpc/connect';
import type {
  DeleteDeviceRequest,
  ListDevicesRequest,
  RegisterDeviceRequest,
} from '../gen/service/v1/device_pb.js';
import { decodeCursor, pageSize } from '../platform/api/page-cursor.js';
import { invalidArgument, notFound } from '../platform/errors/api-error.js';
import { requireCaller } from './auth/caller.js';
import { PLATFORMS } from './devices/device.js';
import type { Device } from './devices/device.js';
import type { DeviceRepository } from './devices/device-repository.js';

const view = (device: Device) => ({
  id: device._id,
  name: device.name,
  platform: device.platform,
  ...(device.pushToken === null ? {} : { pushToken: device.pushToken }),
  createdAt: device.createdAt.toISOString(),
  lastSeenAt: device.lastSeenAt.toISOString(),
});

export function createDeviceService(devices: DeviceRepository) {
  return {
    async registerDevice(request: RegisterDeviceRequest, context: HandlerContext) {
      const caller = requireCaller(context);
      if (request.name.trim() === '' || request.name.length > 64)
        throw invalidArgument('name must have 1 to 64 characters');
      if (!PLATFORMS.includes(request.platform as Device['platform']))
        throw invalidArgument(`platform must be one of ${PLATFORMS.join(', ')}`);
      if ((request.pushToken?.length ?? 0) > 4096)
        throw invalidArgument('push_token has at most 4096 characters');
      const pushToken = request.pushToken || null;
      const now = new Date();
      const fields = {
        name: request.name,
        platform: request.platform as Device['platform'],
        pushToken,
        lastSeenAt: now,
      };
      return devices.withPushTokenMoved(pushToken, async () => {
        if (request.deviceId !== '') {
          const updated = await devices.update(caller.address, request.deviceId, fields);
          if (!updated) throw notFound('No such device');
          return {
            success: true,
            message: 'Device updated',
            device: view(updated),
            created: false,
          };
        }
        const device: Device = {
          _id: randomBytes(12).toString('hex'),
          address: caller.address,
          createdAt: now,
          ...fields,
        };
        await devices.insert(device);
        return { success: true, message: 'Device registered', device: view(device), created: true };
      });
    },

    async listDevices(request: ListDevicesRequest, context: HandlerContext) {
      const caller = requireCaller(context);
      const page = await devices.list(
        caller.address,
        pageSize(request.pageSize),
        decodeCursor(request.cursor),
      );
      return {
        success: true,
        message: `${page.items.length} devices`,
        devices: page.items.map(view),
        nextCursor: page.nextCursor,
      };
    },

    async deleteDevice(request: DeleteDeviceRequest, context: HandlerContext) {
      const caller = requireCaller(context);
      if (!(await devices.remove(caller.address, request.id))) throw notFound('No such device');
      return { success: true, message: 'Device removed' };
    },
  };
}
