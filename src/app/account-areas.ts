/**
 * Account life and social recovery, built last: an account move or deletion walks every
 * area's address-keyed records, and completing a recovery moves the account.
 */
import { createAccountLifecycleArea } from '../account-lifecycle/account-lifecycle-area.js';
import type { IdentityAreas } from './identity-wiring.js';
import type { AccountDataOwner } from '../platform/account-data/account-data-owner.js';
import { createRecoveryArea, createRecoveryRecords } from '../recovery/recovery-area.js';
import type { RecoveryRecords } from '../recovery/recovery-area.js';
import type { ApiAreaPorts } from './api-area-ports.js';
import type { ContentAreas } from './content-areas.js';
import type { ConversationAreas } from './conversation-areas.js';
import type { DeliveryAreas } from './delivery-areas.js';
import type { FoundationAreas } from './foundation-areas.js';

/** The areas whose records an account walk goes over, besides identity and recovery. */
export type WalkedAreas = FoundationAreas & ConversationAreas & DeliveryAreas & ContentAreas;

export async function buildAccountAreas(
  ports: ApiAreaPorts,
  identityAreas: IdentityAreas,
  walked: WalkedAreas,
) {
  const { config, store } = ports;
  const { accounts, identity, mfa } = identityAreas;
  // The walk goes over recovery's records, and completing a recovery starts a walk: recovery's
  // records first, then the walk over every owner, then recovery's service with the walk's moves.
  const recoveryRecords = await createRecoveryRecords({ settings: config.accounts, store });
  const accountData = accountDataInWalkOrder(identityAreas, walked, recoveryRecords);
  const accountLife = await createAccountLifecycleArea({
    settings: config.accounts,
    store,
    owners: accountData,
    closer: identity.accountData,
    confirmSecondFactor: (address, code) => mfa.mfa.confirm(address, code),
    metrics: ports.accountWalkMetrics,
    logger: ports.logger,
    outages: ports.outages,
  });
  const recovery = createRecoveryArea({
    records: recoveryRecords,
    serviceName: config.service.name,
    accounts: accounts.accounts,
    wallets: {
      hasAccount: async (address) => (await accounts.accounts.find(address)) !== null,
      isTaken: async (address) =>
        (await accounts.accounts.findRecord(address)) !== null ||
        (await accounts.retiredWallets.isRetired(address)),
    },
    spentSignatures: identity.spentSignatures,
    signatures: identity.signatures,
    mac: mfa.secretMac,
    moves: accountLife.moves,
    events: ports.events,
    wakeUps: ports.wakeUps,
  });
  return { accountData, accountLife, recovery };
}

export type AccountAreas = Awaited<ReturnType<typeof buildAccountAreas>>;

/**
 * Every area's records keyed by a wallet address, in the order recovery moves them and deletion
 * removes them. Identity last: its account record is what a finished move or deletion leaves
 * behind. Groups before messaging: leaving a group (ownership passed) needs the member records
 * that messaging's deletion removes.
 */
function accountDataInWalkOrder(
  { identity, mfa, phone }: IdentityAreas,
  areas: WalkedAreas,
  recovery: RecoveryRecords,
): AccountDataOwner[] {
  return [
    areas.location.accountData,
    areas.profile.accountData,
    areas.groups.accountData,
    areas.channels.accountData,
    areas.push.accountData,
    areas.mediaLibrary.accountData,
    areas.stories.accountData,
    areas.contacts.accountData,
    areas.polls.accountData,
    areas.messaging.accountData,
    areas.presence.accountData,
    areas.keys.accountData,
    areas.relay.accountData,
    recovery.accountData,
    // Added before identity when the second factor and phone left the identity area: a walk that
    // was at identity's index then resumes at these two, which identity's step used to do.
    mfa.accountData,
    phone.accountData,
    // Added before identity too: a walk that was at identity's index resumes here first.
    areas.moderation.accountData,
    identity.accountData,
  ];
}
