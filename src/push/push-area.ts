/**
 * The push area of an api process: browser push subscriptions (per session), the VAPID key,
 * and the dispatcher that drains the push queue (a background task). The queue and the
 * `WakeUps` that fill it are built by the app for every role (ws pods wake callees) and come in;
 * which devices are connected is realtime's `SessionConnections`, which sessions are active is
 * identity's (`activeSessionsOf`); a session's subscriptions go when it ends (the area subscribes
 * to `sessionEnded`, announced by identity). It returns, besides its service, the dispatcher and
 * its account data owner.
 */
import { readFile } from 'node:fs/promises';
import type { EventSubscriptions } from '../events/in-process-event.js';
import type { PushSettings } from '../platform/config/settings.js';
import type { Logger } from '../platform/logging/logger.js';
import type { OutageLog } from '../platform/logging/outage-log.js';
import type { SharedState } from '../platform/shared-state/shared-state.js';
import type { DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import type { SessionConnections } from '../events/session-connections.js';
import { PushDispatcher } from './delivery/push-dispatcher.js';
import type { ActiveSessionsOf } from './delivery/push-dispatcher.js';
import type { PushQueue } from './delivery/push-queue.js';
import { PushSender } from './delivery/push-sender.js';
import { pushAccountData } from './push-account-data.js';
import type { PushMetrics } from './push-metrics.js';
import { createPushService } from './push-service.js';
import { pushSubscriptionIndexes } from './subscriptions/push-subscription.js';
import { PushSubscriptions } from './subscriptions/push-subscriptions.js';
import { loadVapidKeys } from './vapid/vapid-keys.js';

export interface PushDependencies {
  readonly settings: PushSettings;
  /** DATA_DIR: the VAPID key pair made on first start when none is configured. */
  readonly dataDir: string;
  readonly store: DocumentStore;
  readonly sharedState: SharedState;
  readonly queue: PushQueue;
  readonly connections: SessionConnections;
  readonly activeSessionsOf: ActiveSessionsOf;
  /** Ended sessions' ids: their subscriptions go. */
  readonly sessionEnded: EventSubscriptions<string>;
  readonly metrics: PushMetrics;
  readonly logger: Logger;
  readonly outages: OutageLog;
}

/** Every index of the push area (created at start, and by the ensure-indexes command before a rollout). */
export const pushIndexes: IndexSpec[] = [...pushSubscriptionIndexes];

/** A job is leased this much longer than the longest send, so that no other pod takes it meanwhile. */
const LEASE_MARGIN_MS = 30_000;

export async function createPushArea(deps: PushDependencies) {
  const { settings, store, logger } = deps;
  await store.ensureIndexes(pushIndexes);
  const vapid = await loadVapidKeys(settings, deps.dataDir);
  const subscriptions = new PushSubscriptions(store);
  const sender = new PushSender({
    vapid,
    timeoutMs: settings.timeoutMs,
    proxyUrl: settings.proxyUrl,
    extraCa: settings.caFile === undefined ? undefined : await readFile(settings.caFile, 'utf8'),
  });
  deps.sessionEnded.subscribe(async (sessionId) => {
    // The dispatcher also drops subscriptions of ended sessions when it meets them.
    await subscriptions
      .removeOfSessions([sessionId])
      .catch((error: unknown) =>
        logger.warn({ err: error }, 'push subscriptions of an ended session not removed yet'),
      );
  });
  return {
    service: createPushService({ subscriptions, vapid }),
    /** Drains the push queue; the app starts it before serving and stops it before storage closes. */
    dispatcher: new PushDispatcher({
      queue: deps.queue,
      subscriptions,
      activeSessionsOf: deps.activeSessionsOf,
      connections: deps.connections,
      sharedState: deps.sharedState,
      sender,
      metrics: deps.metrics,
      logger,
      outages: deps.outages,
      coalesceWindowMs: settings.coalesceWindowMs,
      leaseMs: settings.timeoutMs + LEASE_MARGIN_MS,
    }),
    accountData: pushAccountData(subscriptions),
  };
}
