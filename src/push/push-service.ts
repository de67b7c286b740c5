/**
 * PushService (push.proto): the caller's browser push subscriptions and the VAPID public key.
 * A subscription belongs to the caller's session (device), so it goes when the session ends.
 */
import type { HandlerContext } from '@connectrpc/connect';
import type { SubscribePushRequest, UnsubscribePushRequest } from '../gen/service/v1/push_pb.js';
import { requireCaller } from '../identity/auth/caller.js';
import type { PushSubscriptions } from './subscriptions/push-subscriptions.js';
import { checkEndpoint, checkSubscription } from './subscriptions/subscription-checks.js';
import type { VapidKeys } from './vapid/vapid-keys.js';

export interface PushServiceDependencies {
  readonly subscriptions: PushSubscriptions;
  readonly vapid: VapidKeys;
}

export function createPushService({ subscriptions, vapid }: PushServiceDependencies) {
  return {
    async subscribePush(request: SubscribePushRequest, context: HandlerContext) {
      const caller = requireCaller(context);
      const checked = checkSubscription(request.endpoint, request.keys);
      const { id, created } = await subscriptions.subscribe(
        { address: caller.address, sessionId: caller.sessionId },
        checked,
      );
      return {
        success: true,
        message: created ? 'Push subscription stored' : 'Push subscription updated',
        subscriptionId: id,
        created,
      };
    },

    async unsubscribePush(request: UnsubscribePushRequest, context: HandlerContext) {
      const caller = requireCaller(context);
      checkEndpoint(request.endpoint);
      const removed = await subscriptions.unsubscribe(caller.address, request.endpoint);
      return {
        success: true,
        message: removed ? 'Push subscription removed' : 'No such push subscription',
        removed,
      };
    },

    async getPushPublicKey() {
      return { success: true, message: 'VAPID public key', publicKey: vapid.publicKey };
    },
  };
}
