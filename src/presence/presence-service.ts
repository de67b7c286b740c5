/** The presence RPC of ProfileService (profile.proto `UpdateStatus`); the profile RPCs land with their own issue. */
import type { HandlerContext } from '@connectrpc/connect';
import type { UpdateStatusRequest } from '../gen/service/v1/profile_pb.js';
import { requireCaller } from '../identity/auth/caller.js';
import { invalidArgument } from '../platform/errors/api-error.js';
import { STATUSES } from './presence.js';
import type { Presence, Status } from './presence.js';

const MAX_STATUS_TEXT = 140;

export function createPresenceService(presence: Presence) {
  return {
    async updateStatus(request: UpdateStatusRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      if (!(STATUSES as readonly string[]).includes(request.status))
        throw invalidArgument(`status must be one of ${STATUSES.join(', ')}`);
      if ([...request.statusText].length > MAX_STATUS_TEXT)
        throw invalidArgument(`status_text has at most ${MAX_STATUS_TEXT} characters`);
      const record = await presence.set(caller, request.status as Status, request.statusText);
      return {
        success: true,
        message: 'Status updated',
        status: record.status,
        statusText: record.statusText,
        updatedAt: record.updatedAt.toISOString(),
      };
    },
  };
}
