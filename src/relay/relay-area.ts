/**
 * The relay area of an api process: sender certificates (signed by the service's key, from the
 * caller's stored key bundle: the keys area's) and the sealed-sender relay, which queues
 * envelopes in the store and hands them to the recipients' connections through their event
 * streams (realtime), now or when a ws pod announces their next connection.
 */
import type { AccountRepository } from '../accounts/account-repository.js';
import type { KeyBundleRepository } from '../keys/store/key-bundle-repository.js';
import type { RelaySettings } from '../platform/config/settings.js';
import type { Logger } from '../platform/logging/logger.js';
import type { OutageLog } from '../platform/logging/outage-log.js';
import type { WakeUps } from '../push/delivery/wake-ups.js';
import type { SharedState } from '../platform/shared-state/shared-state.js';
import type { DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import type { UserConnections } from '../events/user-connections.js';
import type { UserEventStream } from '../events/user-event-stream.js';
import { loadCertificateSigningKey } from './certificates/certificate-signing-key.js';
import { SenderCertificates } from './certificates/sender-certificates.js';
import { createRelayService } from './relay-service.js';
import { DrainsOnConnect } from './sealed/drains-on-connect.js';
import { SealedDelivery } from './sealed/sealed-delivery.js';
import { sealedEnvelopeIndexes } from './sealed/sealed-envelope.js';
import type { AccountDataOwner } from '../platform/account-data/account-data-owner.js';
import { SealedMailbox } from './sealed/sealed-mailbox.js';

export interface RelayDependencies {
  readonly settings: RelaySettings;
  /** DATA_DIR: the signing key made on first start when none is configured. */
  readonly dataDir: string;
  readonly store: DocumentStore;
  readonly sharedState: SharedState;
  readonly events: UserEventStream;
  readonly connections: UserConnections;
  readonly accounts: AccountRepository;
  readonly bundles: KeyBundleRepository;
  readonly logger: Logger;
  readonly outages: OutageLog;
  /** Push wake-ups of recipients with queued envelopes. */
  readonly wakeUps: WakeUps;
}

/** Every index of the relay area (created at start, and by the ensure-indexes command before a rollout). */
export const relayIndexes: IndexSpec[] = [...sealedEnvelopeIndexes];

export async function createRelayArea(deps: RelayDependencies) {
  await deps.store.ensureIndexes(relayIndexes);
  const certificates = new SenderCertificates(
    await loadCertificateSigningKey(deps.settings, deps.dataDir),
  );
  const mailbox = new SealedMailbox(deps.store);
  const delivery = new SealedDelivery(
    mailbox,
    deps.events,
    deps.sharedState,
    deps.logger,
    deps.wakeUps,
  );
  const accountData: AccountDataOwner = {
    // A move re-addresses the queued envelopes; a deletion drops them (profile.proto).
    name: 'relay',
    moveAccount: (from, to) => mailbox.moveQueue(from, to),
    deleteAccount: (address) => mailbox.removeQueue(address),
  };
  return {
    accountData,
    service: createRelayService({
      certificates,
      bundles: deps.bundles,
      accounts: deps.accounts,
      mailbox,
      delivery,
    }),
    /** Listens for connection announcements; the app starts it before serving and stops it before storage closes. */
    drains: new DrainsOnConnect(deps.connections, delivery, deps.outages),
  };
}
