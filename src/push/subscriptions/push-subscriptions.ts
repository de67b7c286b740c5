/**
 * Every query of `push_subscriptions`. An account keeps at most MAX_PER_ACCOUNT subscriptions:
 * subscribing beyond that removes the least recently updated ones (push.proto).
 */
import type { Collection, DocumentStore } from '../../platform/store/document-store.js';
import { PUSH_SUBSCRIPTIONS, subscriptionIdOf } from './push-subscription.js';
import type { PushSubscriptionRecord } from './push-subscription.js';
import type { CheckedSubscription } from './subscription-checks.js';

export const MAX_PER_ACCOUNT = 10;

export class PushSubscriptions {
  private readonly records: Collection<PushSubscriptionRecord>;

  constructor(store: DocumentStore) {
    this.records = store.collection<PushSubscriptionRecord>(PUSH_SUBSCRIPTIONS);
  }

  /** Stores the subscription for the caller's session; `created` is false when the endpoint was known (it is updated and moved). */
  async subscribe(
    owner: { address: string; sessionId: string },
    subscription: CheckedSubscription,
  ): Promise<{ id: string; created: boolean }> {
    const id = subscriptionIdOf(subscription.endpoint);
    const now = new Date();
    const result = await this.records.updateOne(
      { _id: id },
      {
        $set: {
          endpoint: subscription.endpoint,
          p256dh: subscription.p256dh,
          auth: subscription.auth,
          address: owner.address,
          sessionId: owner.sessionId,
          updatedAt: now,
        },
        $setOnInsert: { createdAt: now },
      },
      { upsert: true },
    );
    await this.trim(owner.address);
    return { id, created: result.upsertedId !== undefined };
  }

  /** Removes the caller's subscription of this endpoint; false when the caller had none. */
  async unsubscribe(address: string, endpoint: string): Promise<boolean> {
    const { deletedCount } = await this.records.deleteOne({
      _id: subscriptionIdOf(endpoint),
      address,
    });
    return deletedCount > 0;
  }

  forAccount(address: string): Promise<PushSubscriptionRecord[]> {
    return this.records.find({ address });
  }

  /**
   * Removes a subscription the push service reported gone, unless it was subscribed again
   * (new keys) after the push that failed was queued.
   */
  async removeGone(id: string, endpointKeys: { p256dh: string; auth: string }): Promise<boolean> {
    const { deletedCount } = await this.records.deleteOne({
      _id: id,
      p256dh: endpointKeys.p256dh,
      auth: endpointKeys.auth,
    });
    return deletedCount > 0;
  }

  /** Removes the subscriptions of sessions that ended; answers how many went. */
  async removeOfSessions(sessionIds: readonly string[]): Promise<number> {
    if (sessionIds.length === 0) return 0;
    const { deletedCount } = await this.records.deleteMany({ sessionId: { $in: [...sessionIds] } });
    return deletedCount;
  }

  /** Re-keys an account's subscriptions to its new address (social recovery). */
  async moveAccount(from: string, to: string): Promise<void> {
    await this.records.updateMany({ address: from }, { $set: { address: to } });
    await this.trim(to);
  }

  async removeAccount(address: string): Promise<void> {
    await this.records.deleteMany({ address });
  }

  private async trim(address: string): Promise<void> {
    const surplus = await this.records.find(
      { address },
      { sort: { updatedAt: -1 }, skip: MAX_PER_ACCOUNT, projection: { _id: 1 } },
    );
    if (surplus.length > 0)
      await this.records.deleteMany({ _id: { $in: surplus.map((record) => record._id) } });
  }
}
