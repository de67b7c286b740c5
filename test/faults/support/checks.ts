/**
 * What must hold after a fault, checked over the real REST and /ws surfaces: every
 * acknowledged message is in the history with gap-free sequence numbers, every realtime device
 * got each message or was told to resync, ended sessions stay ended, spent sign-in signatures
 * stay spent, blocks keep applying, and dependency outages answer 503 with Retry-After.
 */
import { randomUUID } from 'node:crypto';
import type { ChildService } from '../../support/child-service.js';
import { RealtimeClient } from '../../support/realtime-client.js';
import { connectWs } from '../../support/session-ws.js';
import type { WsOutcome } from '../../support/session-ws.js';
import type { Api, Reply } from '../../support/session-api.js';
import { sleep } from '../../support/session-api.js';
import { bearer } from '../../support/wallet.js';
import type { SignedIn } from '../../support/wallet.js';
import type { Conversation, MessageLoad } from './message-load.js';
import type { RealtimeDevice } from './realtime-device.js';

export interface StoredMessage {
  readonly id: string;
  readonly client_message_id: string;
  readonly sequence: number;
}

/** The whole history of a conversation as its recipient reads it, oldest first. */
export const history = (http: Api, conversation: Conversation): Promise<StoredMessage[]> =>
  readHistory(http, `peer_address=${conversation.sender.user.address}`, conversation.recipient);

/**
 * Every message of one conversation (`query`: `peer_address=…` or `group_id=…`) as `reader`
 * reads it over REST, oldest first.
 */
export async function readHistory(
  http: Api,
  query: string,
  reader: SignedIn,
): Promise<StoredMessage[]> {
  const messages: StoredMessage[] = [];
  let cursor = '';
  do {
    const page = await http.get(
      `/api/v1/messages?${query}&page_size=200${cursor && `&before_cursor=${cursor}`}`,
      bearer(reader),
    );
    if (page.status !== 200)
      throw new Error(`history: ${page.status} ${JSON.stringify(page.body)}`);
    messages.unshift(...(page.body.messages as StoredMessage[]));
    cursor = page.body.before_cursor as string;
  } while (cursor !== '');
  return messages;
}

/** Each conversation of the load, as its recipient reads it. */
export async function histories(
  http: Api,
  load: MessageLoad,
): Promise<Map<Conversation, StoredMessage[]>> {
  const read = new Map<Conversation, StoredMessage[]>();
  for (const conversation of load.conversations)
    read.set(conversation, await history(http, conversation));
  return read;
}

/** Every message the load saw acknowledged is stored, and no message is stored twice. */
export function expectEveryAcknowledgedStored(
  load: MessageLoad,
  stored: Map<Conversation, StoredMessage[]>,
): void {
  const lost: string[] = [];
  const repeated: string[] = [];
  for (const [conversation, messages] of stored) {
    const ids = new Set(messages.map((message) => message.id));
    lost.push(
      ...load.acknowledged
        .get(conversation)!
        .filter((message) => !ids.has(message.id))
        .map((message) => message.clientMessageId),
    );
    const clientIds = messages.map((message) => message.client_message_id);
    repeated.push(...clientIds.filter((id, index) => clientIds.indexOf(id) !== index));
  }
  expect({ acknowledgedButLost: lost, storedTwice: repeated }).toEqual({
    acknowledgedButLost: [],
    storedTwice: [],
  });
}

/**
 * Each conversation's sequence numbers run 1, 2, 3… without a hole: messages.proto tells
 * clients to detect missing messages by them, so a hole is a message they wait for forever.
 */
export function expectNoSequenceHoles(stored: Map<Conversation, StoredMessage[]>): void {
  const holes = [...stored].flatMap(([conversation, messages]) =>
    sequenceHoles(messages).map(
      (hole) => `${conversation.sender.user.address.slice(0, 10)}: ${hole}`,
    ),
  );
  expect({ sequenceHoles: holes }).toEqual({ sequenceHoles: [] });
}

/**
 * The missing ranges of a history's sequence numbers, which should run 1..n ("4-6" when 4, 5
 * and 6 are missing).
 */
export function sequenceHoles(messages: readonly StoredMessage[]): string[] {
  const holes: string[] = [];
  let expected = 1;
  for (const { sequence } of messages) {
    if (sequence > expected)
      holes.push(sequence - 1 === expected ? `${expected}` : `${expected}-${sequence - 1}`);
    expected = sequence + 1;
  }
  return holes;
}

/**
 * Each stored message reached the device, once per stream, or the device was told
 * `resync_required` after the last message it did get before it (then it re-reads REST).
 * `exact`: no resync allowed either — every message handed over once, in order.
 *
 * Once per stream: after Redis lost its data the user's stream restarts under a new id (the
 * device is told to resync), and a message whose announcement was still pending then is
 * announced on the new stream even if the old one had it; clients recognise it by its id
 * (docs/realtime.md). Within one stream a second announcement is a defect.
 *
 * A message whose event could not be published at send time is announced late (by a retry,
 * or by the sweeper 5 to 7 s after it was stored), possibly after later ones: the check waits
 * up to `LATE_ANNOUNCEMENT_MS` for the device to get what it misses before it fails, and a late
 * one does not count as the last message the device got before the next (deliveredInOrder).
 */
export async function expectNoSilentGap(
  device: RealtimeDevice,
  stored: readonly StoredMessage[],
  options: { exact: boolean },
): Promise<void> {
  const deadline = Date.now() + LATE_ANNOUNCEMENT_MS;
  while (deliveryGaps(device, stored, options).silentlyMissed.length > 0 && Date.now() < deadline)
    await sleep(100);
  expect(deliveryGaps(device, stored, options)).toEqual({ duplicates: [], silentlyMissed: [] });
  if (options.exact) expect(device.delivered).toEqual(stored.map((message) => message.id));
}

/** The sweeper's grace and interval (src/messaging/messages/announcement-sweeper.ts), and a margin. */
export const LATE_ANNOUNCEMENT_MS = 10_000;

/**
 * What `expectNoSilentGap` checks, as data: messages handed over twice on one stream
 * (`duplicates`), and the sequence numbers of stored messages the device neither got nor was
 * told to resync for (`silentlyMissed`).
 */
export function deliveryGaps(
  device: RealtimeDevice,
  stored: readonly StoredMessage[],
  options: { exact: boolean },
) {
  const handedOver = device.seen.flatMap((entry) =>
    entry.kind === 'message' ? [`${entry.id} on stream ${entry.frame.stream}`] : [],
  );
  const duplicates = handedOver.filter((key, index) => handedOver.indexOf(key) !== index);
  const seenAt = new Map<string, number>();
  device.seen.forEach(
    (entry, index) =>
      entry.kind === 'message' && !seenAt.has(entry.id) && seenAt.set(entry.id, index),
  );
  const inOrder = deliveredInOrder(stored, seenAt);
  const silentlyMissed: number[] = [];
  let lastDeliveredAt = -1;
  for (const message of stored) {
    const at = seenAt.get(message.id);
    if (at !== undefined) {
      if (inOrder.has(message.id)) lastDeliveredAt = Math.max(lastDeliveredAt, at);
      continue;
    }
    const signalled =
      !options.exact &&
      device.seen.some((entry, index) => entry.kind === 'resync' && index > lastDeliveredAt);
    if (!signalled) silentlyMissed.push(message.sequence);
  }
  return { duplicates, silentlyMissed };
}

/**
 * The messages handed over before every later message of the conversation. One announced late
 * (after later ones) does not move the point after which a resync must have come for the
 * messages after it: they were stored before that resync, and the client's re-read has them.
 */
function deliveredInOrder(
  stored: readonly StoredMessage[],
  seenAt: ReadonlyMap<string, number>,
): Set<string> {
  const inOrder = new Set<string>();
  let firstLaterSeenAt = Infinity;
  for (const message of [...stored].reverse()) {
    const at = seenAt.get(message.id);
    if (at === undefined) continue;
    if (at < firstLaterSeenAt) inOrder.add(message.id);
    firstLaterSeenAt = Math.min(firstLaterSeenAt, at);
  }
  return inOrder;
}

/** A failure envelope with 503 UNAVAILABLE and a whole positive number of seconds in Retry-After. */
export function expectUnavailable(reply: Reply, what: string): void {
  expect({
    what,
    status: reply.status,
    code: reply.body?.code,
    retryAfter: reply.headers.get('retry-after'),
  }).toEqual({
    what,
    status: 503,
    code: 'UNAVAILABLE',
    retryAfter: expect.stringMatching(/^[1-9]\d*$/),
  });
}

/**
 * Security state made before a fault: a session ended (logout), a sign-in signature accepted
 * (spent), and a user blocked by another.
 */
export interface SecurityMarks {
  readonly endedSession: SignedIn;
  readonly spentSignIn: Record<string, unknown>;
  readonly blocker: SignedIn;
  readonly blocked: SignedIn;
}

export async function makeSecurityMarks(
  http: Api,
  signIn: () => Promise<SignedIn>,
): Promise<SecurityMarks> {
  const endedSession = await signIn();
  expect((await http.post('/api/v1/logout', {}, bearer(endedSession))).status).toBe(200);
  const { user } = await signIn();
  const spentSignIn = await user.initializeBody('sign-in');
  expect((await http.post('/api/v1/initialize', spentSignIn)).status).toBe(200);
  const [blocker, blocked] = [await signIn(), await signIn()];
  expect(
    (await http.post('/api/v1/block-contact', { address: blocked.user.address }, bearer(blocker)))
      .status,
  ).toBe(200);
  return { endedSession, spentSignIn, blocker, blocked };
}

/**
 * Nothing a fault did revived what the marks ended: the ended session is refused on REST (401)
 * and opens /ws on no pod; the spent signature signs nobody in (401 REPLAY_DETECTED); the
 * blocked user's call offer is refused on every pod (CALL_REFUSED).
 */
export async function expectMarksHold(
  http: Api,
  wsPods: readonly ChildService[],
  marks: SecurityMarks,
): Promise<void> {
  const ended = marks.endedSession;
  // The call offers first: they wait out the documented 4503 while a pod's mirrors are being
  // rebuilt, so that the checks after them meet a recovered cluster rather than pass on a
  // refusal of everyone. Then /ws before REST: a REST call with the ended session's token may
  // write its "ended" mark to shared state again, and a client that only holds a socket never
  // makes one.
  const offers = await Promise.all(
    wsPods.map((pod) => callOffer(http.baseUrl, pod, marks.blocked, marks.blocker)),
  );
  const sockets = await Promise.all(
    wsPods.map((pod) => connectWs(pod.baseUrl, { protocols: ['bearer', ended.accessToken] })),
  );
  const rest = await http.listSessions(ended.accessToken);
  const ticket = await http.post('/api/v1/auth/ws-ticket', {}, bearer(ended));
  const replay = await http.post('/api/v1/initialize', marks.spentSignIn);
  expect({
    endedSessionOnRest: [rest.status, ticket.status],
    endedSessionOnWs: sockets.map(wsRefusal),
    spentSignature: [replay.status, replay.body?.code],
    blockedUsersCallOffer: offers,
  }).toEqual({
    endedSessionOnRest: [401, 401],
    endedSessionOnWs: wsPods.map(() => 'refused'),
    spentSignature: [401, 'REPLAY_DETECTED'],
    blockedUsersCallOffer: wsPods.map(() => 'CALL_REFUSED'),
  });
}

/** 'refused', or what an opened connection greeted with. */
const wsRefusal = (outcome: WsOutcome) =>
  outcome.opened ? `opened: ${JSON.stringify(outcome.greeting)}` : 'refused';

/** `from` offers `to` a call on `pod`: the error code, or `ack` when it went through. */
export async function callOffer(
  apiBaseUrl: string,
  pod: ChildService,
  from: SignedIn,
  to: SignedIn,
): Promise<string> {
  const client = await connectOnceAvailable(apiBaseUrl, pod, from);
  try {
    const answer = await client.request({
      type: 'call.offer',
      call_id: `fault-${randomUUID()}`,
      to: to.user.address,
      sdp: 'v=0',
    });
    return answer.type === 'ack' ? 'ack' : answer.code;
  } finally {
    client.close();
  }
}

/** Connects as a client would: a 4503 refusal ("reconnect later") is retried for up to 10 s. */
async function connectOnceAvailable(
  apiBaseUrl: string,
  pod: ChildService,
  session: SignedIn,
): Promise<RealtimeClient> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return await RealtimeClient.connect(apiBaseUrl, pod.baseUrl, session.accessToken);
    } catch (error) {
      if (Date.now() > deadline || !/closed \(4503 /.test(String(error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
