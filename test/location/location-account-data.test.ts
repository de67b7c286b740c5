/**
 * The location area's AccountDataOwner, called directly (recovery and deletion call it in their
 * walk): moving or deleting an account ends every active session it shares or is shared with,
 * tells the audience, leaves other users' sessions alone, and is harmless to repeat.
 */
import { Registry } from 'prom-client';
import { BlockList } from '../../src/contacts/block-list.js';
import { BlockMirror } from '../../src/contacts/block-mirror.js';
import { AccountRepository } from '../../src/accounts/account-repository.js';
import { InProcessEvent } from '../../src/events/in-process-event.js';
import { createLocationArea } from '../../src/location/location-area.js';
import { createLocationMetrics } from '../../src/location/location-metrics.js';
import { LOCATION_SESSIONS } from '../../src/location/location-session.js';
import type { LocationSessionRecord } from '../../src/location/location-session.js';
import { Conversations } from '../../src/messaging/conversations/conversations.js';
import { createLogger } from '../../src/platform/logging/logger.js';
import { OutageLog } from '../../src/platform/logging/outage-log.js';
import { MemorySharedState } from '../../src/platform/shared-state/memory-shared-state.js';
import { MessagingEvents } from '../../src/events/messaging-events.js';
import { UserEventStream } from '../../src/events/user-event-stream.js';
import { openEmbeddedStore } from '../support/stores-under-test.js';
import type { StoreUnderTest } from '../support/stores-under-test.js';

const [A, B, C, D] = ['1', '2', '3', '4'].map((digit) => '0x' + digit.repeat(40)) as [
  string,
  string,
  string,
  string,
];

let underTest: StoreUnderTest;
let area: Awaited<ReturnType<typeof createLocationArea>>;
let heard: { to: string; event: { type: string; data: { session_id: string; state: string } } }[];

const session = (id: string, owner: string, peer: string): LocationSessionRecord => {
  const now = Date.now();
  return {
    _id: id,
    owner,
    peer,
    groupId: '',
    conversationId: `dm:${[owner, peer].sort().join(':')}`,
    state: 'active',
    startedAt: new Date(now),
    expiresAt: new Date(now + 600_000),
    stoppedAt: null,
    lastRelayedAt: null,
    purgeAt: new Date(now + 4_200_000),
  };
};

beforeEach(async () => {
  underTest = await openEmbeddedStore();
  const { store } = underTest;
  const logger = createLogger('silent');
  const shared = new MemorySharedState({ keyPrefix: 'location-data:', logger });
  const stream = new UserEventStream(shared, { retainCount: 10, retentionMs: 60_000 });
  heard = [];
  const events = new MessagingEvents(stream, logger);
  const publishEphemeral = stream.publishEphemeral.bind(stream);
  stream.publishEphemeral = async (to: string, event: string) => {
    heard.push({ to, event: JSON.parse(event) });
    return publishEphemeral(to, event);
  };
  area = await createLocationArea({
    settings: { minDurationSeconds: 60 },
    store,
    conversations: new Conversations(store, new AccountRepository(store)),
    blocks: new BlockList(store, new BlockMirror(shared)),
    blockMade: new InProcessEvent(),
    events,
    metrics: createLocationMetrics(new Registry()),
    logger,
    outages: new OutageLog(logger),
  });
  const sessions = store.collection<LocationSessionRecord>(LOCATION_SESSIONS);
  for (const record of [session('a-to-b', A, B), session('c-to-a', C, A), session('c-to-d', C, D)])
    await sessions.insertOne(record);
});
afterEach(() => underTest.dispose());

const stateOf = async (id: string) =>
  (await underTest.store.collection<LocationSessionRecord>(LOCATION_SESSIONS).findOne({ _id: id }))
    ?.state;

it.each(['moveAccount', 'deleteAccount'] as const)(
  '%s ends the sessions the account shares or is shared with, once',
  async (step) => {
    const run = () =>
      step === 'moveAccount'
        ? area.accountData.moveAccount(A, '0x' + '5'.repeat(40))
        : area.accountData.deleteAccount(A);
    await run();
    await run();
    expect([await stateOf('a-to-b'), await stateOf('c-to-a'), await stateOf('c-to-d')]).toEqual([
      'stopped',
      'stopped',
      'active',
    ]);
    const ends = heard
      .filter((each) => each.event.type === 'location.ended')
      .map((each) => [each.to, each.event.data.session_id]);
    expect(ends.sort()).toEqual([
      [A, 'c-to-a'],
      [B, 'a-to-b'],
    ]);
  },
);
