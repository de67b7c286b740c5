/**
 * Reads everything back after the load stopped and the faults healed, and states what broke:
 *
 * - lost: an acknowledged send that is not in its conversation's history;
 * - stored twice: one `client_message_id` twice in a history; a sequence number given twice;
 *   a hole in a conversation's numbers;
 * - delivery: a message handed to a device twice on one stream (beyond the allowed: once per
 *   stream, since a Redis that lost its data restarts the streams and the device was told to
 *   resync), or a stored message a device neither got nor was told to resync for;
 * - revived: a security hold (security-holds.ts) that no longer holds; a one-time prekey
 *   handed out twice;
 * - 5xx outside a fault window (a window runs from a fault's start to WINDOW_GRACE_MS after it
 *   healed), and inside one anything but the documented 503 UNAVAILABLE with Retry-After;
 * - RSS growing faster than MAX_RSS_SLOPE_MIB_PER_MINUTE over at least
 *   MIN_RSS_MEASUREMENT_SECONDS of one process's life.
 *
 * Nothing here depends on how fast the cluster was: a late message is waited for (up to
 * LATE_DELIVERY_MS, after which the device was told to resync or it is a gap), and slowness
 * shows only in the recovery times, which are measured, not judged.
 */
import { deliveryGaps, readHistory, sequenceHoles } from '../faults/support/checks.js';
import type { StoredMessage } from '../faults/support/checks.js';
import type { RealtimeDevice } from '../faults/support/realtime-device.js';
import { sleep } from '../support/session-api.js';
import type { Api } from '../support/session-api.js';
import type { SignedIn } from '../support/wallet.js';
import { bearer } from '../support/wallet.js';
import type { SoakConversation } from './conversations.js';
import type { FaultRecord } from './fault-injector.js';
import type { Operation, Recorder } from './recorder.js';
import type { RssFigures } from './rss-sampler.js';
import type { SecurityHold } from './security-holds.js';
import type { SoakCluster } from './soak-cluster.js';
import type { Workload } from './workload.js';

/** After a fault healed, requests may still meet its effects this long (mirrors rebuilt, pods re-subscribed). */
export const WINDOW_GRACE_MS = 10_000;
/** How long a device may take to get a message late (sweeper 5-7 s, reconnect, replay) on a loaded machine. */
const LATE_DELIVERY_MS = 30_000;
/** The bound on each process's RSS growth over the measured stretch (docs/reliability.md). */
export const MAX_RSS_SLOPE_MIB_PER_MINUTE = 8;
/**
 * A slope is judged only over at least this long: in the first minutes a process's heap and
 * caches are still filling (a 120 s run measures warm-up, not a trend), so it is reported only.
 */
export const MIN_RSS_MEASUREMENT_SECONDS = 300;

export interface Findings {
  readonly lost: string[];
  readonly storedTwice: string[];
  readonly sequenceGivenTwice: string[];
  readonly sequenceHoles: string[];
  /** Same message on one stream of one device twice. */
  readonly deliveredTwice: string[];
  /** Same message on two streams of one device: allowed after Redis lost its data. */
  readonly redeliveredOnNewStream: number;
  readonly silentlyMissed: string[];
  readonly revived: string[];
  readonly prekeysHandedOutTwice: string[];
  readonly serverErrorsOutsideWindows: string[];
  readonly otherThan503InsideWindows: string[];
  readonly rssOverBound: string[];
}

export async function check(
  cluster: SoakCluster,
  recorder: Recorder,
  workload: Workload,
  faults: readonly FaultRecord[],
  rss: Record<string, RssFigures>,
): Promise<Findings> {
  const histories = new Map<SoakConversation, StoredMessage[]>();
  for (const conversation of workload.conversations)
    histories.set(conversation, await historyOf(cluster.http, conversation));
  const stored = storageFindings(histories);
  const delivery = await deliveryFindings(workload.devices, histories, recorder);
  const revived: string[] = [];
  for (const hold of sampled(workload.holds)) {
    const broken = await hold.stillHolds(cluster, recorder);
    if (broken !== undefined) revived.push(`${hold.kind} made at ${hold.at} ms: ${broken}`);
  }
  return {
    ...stored,
    ...delivery,
    revived,
    prekeysHandedOutTwice: repeated(workload.prekeys.handedOut),
    ...serverErrorFindings(recorder.operations, faults),
    rssOverBound: Object.entries(rss)
      .filter(
        ([, figures]) =>
          figures.measuredSeconds >= MIN_RSS_MEASUREMENT_SECONDS &&
          figures.slopeMiBPerMinute > MAX_RSS_SLOPE_MIB_PER_MINUTE,
      )
      .map(([name, figures]) => `${name}: ${figures.slopeMiBPerMinute} MiB/min`),
  };
}

/** Whether nothing was lost, duplicated beyond the allowed, revived, or answered 5xx out of place. */
export const violations = (findings: Findings): Partial<Findings> =>
  Object.fromEntries(
    Object.entries(findings).filter(
      ([name, value]) => name !== 'redeliveredOnNewStream' && (value as string[]).length > 0,
    ),
  );

function storageFindings(histories: ReadonlyMap<SoakConversation, StoredMessage[]>) {
  const lost: string[] = [];
  const storedTwice: string[] = [];
  const sequenceGivenTwice: string[] = [];
  const holes: string[] = [];
  for (const [conversation, messages] of histories) {
    const ids = new Set(messages.map((message) => message.id));
    lost.push(
      ...conversation.acknowledged
        .filter((message) => !ids.has(message.id))
        .map(
          (message) =>
            `${conversation.label}: ${message.clientMessageId} (acknowledged at ${message.acknowledgedAt} ms)`,
        ),
    );
    storedTwice.push(...repeated(messages.map((message) => message.client_message_id)));
    sequenceGivenTwice.push(
      ...repeated(messages.map((message) => `${conversation.label} #${message.sequence}`)),
    );
    holes.push(...sequenceHoles(messages).map((hole) => `${conversation.label}: ${hole}`));
  }
  return { lost, storedTwice, sequenceGivenTwice, sequenceHoles: holes };
}

async function deliveryFindings(
  devices: ReadonlyMap<SoakConversation, RealtimeDevice>,
  histories: ReadonlyMap<SoakConversation, StoredMessage[]>,
  recorder: Recorder,
) {
  const gapsNow = () =>
    [...devices].map(([conversation, device]) => {
      const gaps = deliveryGaps(device, histories.get(conversation)!, { exact: false });
      const covered = resyncedAfterStored(device, conversation, recorder);
      return {
        conversation,
        device,
        gaps: { ...gaps, silentlyMissed: gaps.silentlyMissed.filter((seq) => !covered(seq)) },
      };
    });
  const deadline = Date.now() + LATE_DELIVERY_MS;
  let gaps = gapsNow();
  while (gaps.some((each) => each.gaps.silentlyMissed.length > 0) && Date.now() < deadline) {
    await sleep(250);
    gaps = gapsNow();
  }
  return {
    deliveredTwice: gaps.flatMap(({ conversation, gaps: found }) =>
      found.duplicates.map((duplicate) => `${conversation.label}: ${duplicate}`),
    ),
    redeliveredOnNewStream: gaps.reduce((sum, { device }) => sum + onSeveralStreams(device), 0),
    silentlyMissed: gaps.flatMap(({ conversation, device, gaps: found }) =>
      found.silentlyMissed.map((sequence) => {
        const sent = conversation.acknowledged.find((message) => message.sequence === sequence);
        return `${conversation.label} #${sequence} (acknowledged at ${sent?.acknowledgedAt ?? '?'} ms; the device's close codes ${JSON.stringify(device.closeCodes)}, resyncs ${device.resyncs.length}; it saw ${aroundTheMiss(device, histories.get(conversation)!, sequence, recorder)})`;
      }),
    ),
  };
}

/**
 * Whether the device was told to resync after the message of `sequence` was acknowledged (so
 * durable): its re-read over REST has the message. `deliveryGaps` looks for a resync after the
 * last message handed over before it, which misses this case: a message the sweeper announced
 * late (its first publish failed), on the stream Redis restarted with, arrives after the resync
 * that covers the messages stored before the restart, and would seem to come before them.
 */
function resyncedAfterStored(
  device: RealtimeDevice,
  conversation: SoakConversation,
  recorder: Recorder,
): (sequence: number) => boolean {
  const offset = Date.now() - recorder.now();
  const resyncs = device.seen.filter((entry) => entry.kind === 'resync');
  return (sequence) => {
    const acknowledgedAt = conversation.acknowledged.find(
      (message) => message.sequence === sequence,
    )?.acknowledgedAt;
    return (
      acknowledgedAt !== undefined && resyncs.some((entry) => entry.at - offset > acknowledgedAt)
    );
  };
}

/**
 * What the device saw around a missed message: from a few entries before the last message of a
 * lower number it got to the message after the missed one, each as
 * `#<conversation sequence>@<stream>:<seq>` or `resync@<stream>:<seq> (<arrival, s>)`: whether
 * the missed message's event was numbered on the device's stream shows in the seq jump.
 */
function aroundTheMiss(
  device: RealtimeDevice,
  stored: readonly StoredMessage[],
  sequence: number,
  recorder: Recorder,
): string {
  const offset = Date.now() - recorder.now();
  const sequenceOf = new Map(stored.map((message) => [message.id, message.sequence]));
  const entries = device.seen.map((entry) => ({
    sequence: entry.kind === 'message' ? sequenceOf.get(entry.id) : undefined,
    text:
      entry.kind === 'message'
        ? `#${sequenceOf.get(entry.id) ?? '?'}@${String(entry.frame.stream)}:${String(entry.frame.seq)}`
        : `resync@${String(entry.frame.stream)}:${String(entry.frame.seq)} (${((entry.at - offset) / 1000).toFixed(1)} s)`,
  }));
  const before = entries.findLastIndex(
    (entry) => entry.sequence !== undefined && entry.sequence < sequence,
  );
  const after = entries.findIndex((entry) => entry.sequence === sequence + 1);
  const from = Math.max(0, before - 4);
  const to = Math.min(after < 0 ? before + 4 : after + 1, from + 16);
  return entries
    .slice(from, to)
    .map((entry) => entry.text)
    .join(' ');
}

/** Messages a device got on more than one stream (each counted once per extra stream). */
function onSeveralStreams(device: RealtimeDevice): number {
  const streams = new Map<string, Set<string>>();
  for (const entry of device.seen)
    if (entry.kind === 'message')
      streams.set(entry.id, (streams.get(entry.id) ?? new Set()).add(String(entry.frame.stream)));
  return [...streams.values()].reduce((sum, set) => sum + set.size - 1, 0);
}

function serverErrorFindings(operations: readonly Operation[], faults: readonly FaultRecord[]) {
  const inWindow = (operation: Operation) =>
    faults.some(
      (fault) =>
        operation.endedAt >= fault.startedAt &&
        operation.startedAt <= fault.healedAt + WINDOW_GRACE_MS,
    );
  const describe = (operation: Operation) =>
    `${operation.kind} at ${operation.startedAt}-${operation.endedAt} ms: ${operation.outcome} ${operation.code ?? ''}`.trim();
  const serverErrors = operations.filter(
    (operation) => typeof operation.outcome === 'number' && operation.outcome >= 500,
  );
  return {
    serverErrorsOutsideWindows: serverErrors.filter((op) => !inWindow(op)).map(describe),
    otherThan503InsideWindows: serverErrors
      .filter(
        (op) =>
          inWindow(op) &&
          (op.outcome !== 503 ||
            op.code !== 'UNAVAILABLE' ||
            !/^[1-9]\d*$/.test(op.retryAfter ?? '')),
      )
      .map(describe),
  };
}

/** A conversation's whole history as its reader sees it, oldest first; retried while the cluster settles. */
async function historyOf(http: Api, conversation: SoakConversation): Promise<StoredMessage[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      return conversation.kind === 'channel'
        ? await channelPosts(http, conversation.target.channel_id!, conversation.reader)
        : await readHistory(
            http,
            new URLSearchParams(conversation.readerSide).toString(),
            conversation.reader,
          );
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(500);
    }
  }
}

async function channelPosts(
  http: Api,
  channelId: string,
  reader: SignedIn,
): Promise<StoredMessage[]> {
  const posts: StoredMessage[] = [];
  let cursor = '';
  do {
    const page = await http.get(
      `/api/v1/channels/${channelId}/posts?page_size=100${cursor && `&cursor=${cursor}`}`,
      bearer(reader),
    );
    if (page.status !== 200) throw new Error(`channel posts: ${page.status}`);
    posts.push(...(page.body.posts as StoredMessage[]));
    cursor = page.body.next_cursor as string;
  } while (cursor);
  return posts.sort((a, b) => a.sequence - b.sequence);
}

/** Every hold, except that of a kind with `checkAtMost` only so many, evenly spread over the run. */
function sampled(holds: readonly SecurityHold[]): SecurityHold[] {
  return holds.filter((hold) => {
    if (hold.checkAtMost === undefined) return true;
    const ofKind = holds.filter((other) => other.kind === hold.kind);
    const step = Math.max(1, (ofKind.length - 1) / Math.max(1, hold.checkAtMost - 1));
    const chosen = new Set(
      Array.from(
        { length: Math.min(hold.checkAtMost, ofKind.length) },
        (_, i) => ofKind[Math.round(i * step)],
      ),
    );
    return chosen.has(hold);
  });
}

function repeated(values: readonly string[]): string[] {
  const seen = new Set<string>();
  return values.filter((value) => seen.has(value) || !seen.add(value));
}
