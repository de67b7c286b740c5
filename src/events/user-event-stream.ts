/**
 * Each user's stream of events, in shared state so that any api pod can publish and every ws
 * pod holding one of the user's connections receives (see docs/realtime.md).
 *
 * Durable events are appended by one atomic script that numbers them (`seq`), keeps them for
 * replay (at most `retainCount`, for `retentionMs`) and publishes them, so the order of numbers,
 * the order in the log and the order on the channel are the same even when several pods publish
 * for one user at once. Ephemeral events are only published.
 *
 * A stream has an id, drawn when its counter starts: if the counter is ever lost (Redis
 * restarted without persistence, or the user was idle past the counter's TTL), numbering starts
 * again under a new id, and a client resuming with the old id is told to resync instead of being
 * handed unrelated events under numbers it has already seen.
 *
 * Keys share the `{address}` hash tag, so one script touches one Redis Cluster slot.
 */
import { randomId } from '../platform/random/random-id.js';
import { splitTraceparent, withoutTraceparent } from './event-trace.js';
import { defineScript } from '../platform/shared-state/shared-state.js';
import type { SharedState, Unsubscribe } from '../platform/shared-state/shared-state.js';

export interface UserEventStreamSettings {
  /** Events kept per user for replay (WS_REPLAY_EVENTS). */
  readonly retainCount: number;
  /** How long each event stays replayable (WS_REPLAY_RETENTION). */
  readonly retentionMs: number;
}

/** An event as a subscriber receives it. */
export interface StreamedEvent {
  /** 0 for ephemeral events. */
  readonly seq: number;
  /** The stream id of a durable event; empty for ephemeral ones. */
  readonly stream: string;
  /** When the publisher published it (epoch ms), for the fan-out latency metric. */
  readonly publishedAt: number;
  /** The envelope to send as it is (its trace context already taken off). */
  readonly frame: string;
  /** The publish's W3C trace context, when the publishing request was traced (event-trace.ts). */
  readonly traceparent?: string | undefined;
}

/** Whether the events after a client's position can be replayed, and up to which number. */
export type ReplayCheck = {
  readonly kind: 'events' | 'resync';
  readonly stream: string;
  readonly seq: number;
};

/** Kept far longer than events, so that a quiet user keeps the stream id a client holds. */
const COUNTER_TTL_MS = 30 * 24 * 60 * 60 * 1000;

const keysOf = (address: string) => {
  const tag = `{${address}}`;
  return {
    seq: `ev:${tag}:seq`,
    stream: `ev:${tag}:stream`,
    eventPrefix: `ev:${tag}:e:`,
    channel: `ev:${tag}`,
    dedupePrefix: `ev:${tag}:once:`,
  };
};

/**
 * Appends one durable event: number it, store it, forget the one that falls out of the
 * window, publish it; with a dedupe key (ARGV[7] = 1), only if that key has no event yet.
 * KEYS: seq, stream, event prefix, channel, dedupe key. ARGV: event JSON (without seq), a
 * fresh stream id, retention ms, retain count, counter TTL ms, now ms, 1 to dedupe.
 */
const appendEvent = defineScript<
  [
    event: string,
    freshStream: string,
    retentionMs: number,
    retainCount: number,
    counterTtlMs: number,
    nowMs: number,
    dedupe: number,
  ],
  [number, string]
>({
  name: 'user-event-append',
  keys: 5,
  lua: `local dedupe = ARGV[7] == '1'
if dedupe then
  local earlier = redis.call('GET', KEYS[5])
  if earlier then return {tonumber(earlier), redis.call('GET', KEYS[2]) or ''} end
end
local seq = redis.call('INCR', KEYS[1])
local stream = redis.call('GET', KEYS[2])
if seq == 1 or not stream then stream = ARGV[2] end
redis.call('SET', KEYS[2], stream, 'PX', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
local frame = '{"seq":' .. seq .. ',"stream":"' .. stream .. '",' .. string.sub(ARGV[1], 2)
redis.call('SET', KEYS[3] .. seq, frame, 'PX', ARGV[3])
local dropped = seq - tonumber(ARGV[4])
if dropped > 0 then redis.call('DEL', KEYS[3] .. dropped) end
if dedupe then redis.call('SET', KEYS[5], seq, 'PX', ARGV[3]) end
redis.call(PUBLISH, KEYS[4], stream .. '|' .. ARGV[6] .. '|' .. frame)
return {seq, stream}`,
  local: (
    state,
    [seqKey, streamKey, eventPrefix, channel, dedupeKey],
    [event, freshStream, retentionMs, retainCount, counterTtlMs, nowMs, dedupe],
  ) => {
    const earlier = Number(dedupe) === 1 ? state.get(dedupeKey!) : null;
    if (earlier !== null) return [Number(earlier), state.get(streamKey!) ?? ''];
    const seq = Number(state.get(seqKey!) ?? '0') + 1;
    // INCR then PEXPIRE, as one write: a key operation less per member of a group message.
    state.set(seqKey!, String(seq), { ttlMs: Number(counterTtlMs) });
    const stored = state.get(streamKey!);
    const stream = seq === 1 || stored === null ? freshStream! : stored;
    state.set(streamKey!, stream, { ttlMs: Number(counterTtlMs) });
    const frame = `{"seq":${seq},"stream":"${stream}",${event!.slice(1)}`;
    state.set(eventPrefix! + seq, frame, { ttlMs: Number(retentionMs) });
    const dropped = seq - Number(retainCount);
    if (dropped > 0) state.delete(eventPrefix! + dropped);
    if (Number(dedupe) === 1) state.set(dedupeKey!, String(seq), { ttlMs: Number(retentionMs) });
    state.publish(channel!, `${stream}|${nowMs}|${frame}`);
    return [seq, stream];
  },
});

/**
 * Rewrites durable events still kept for replay (a message's `message.new` and `message.edited`
 * after an edit or a deletion), so that replay never hands out content the sender replaced or
 * deleted. The event is found by its dedupe key (which holds its number) and keeps its number,
 * stream and TTL; only what follows `"stream":"…",` is replaced. An event no longer kept is
 * left alone. KEYS: event prefix, dedupe key. ARGV: the replacement event JSON (as eventJson
 * builds it). Answers 1 when rewritten, else 0.
 */
const rewriteEvent = defineScript<[event: string], number>({
  name: 'user-event-rewrite',
  keys: 2,
  lua: `local seq = redis.call('GET', KEYS[2])
if not seq then return 0 end
local frame = redis.call('GET', KEYS[1] .. seq)
if not frame then return 0 end
local head = string.match(frame, '^{"seq":%d+,"stream":"[^"]*",')
if not head then return 0 end
redis.call('SET', KEYS[1] .. seq, head .. string.sub(ARGV[1], 2), 'KEEPTTL')
return 1`,
  local: (state, [eventPrefix, dedupeKey], [event]) => {
    const seq = state.get(dedupeKey!);
    const frame = seq === null ? null : state.get(eventPrefix! + seq);
    const head = frame?.match(/^\{"seq":\d+,"stream":"[^"]*",/)?.[0];
    if (!head) return 0;
    state.set(eventPrefix! + seq, head + event!.slice(1), { keepTtl: true });
    return 1;
  },
});

export class UserEventStream {
  constructor(
    private readonly state: SharedState,
    private readonly settings: UserEventStreamSettings,
  ) {}

  /**
   * Numbers, keeps and publishes a durable event (built by `eventJson`); resolves with its seq.
   * With `dedupeKey`, an event already appended under that key is not appended again: its seq
   * is the answer.
   */
  async publishDurable(address: string, event: string, dedupeKey?: string): Promise<number> {
    const keys = keysOf(address);
    const [seq] = await this.state.run(
      appendEvent,
      [
        keys.seq,
        keys.stream,
        keys.eventPrefix,
        keys.channel,
        keys.dedupePrefix + (dedupeKey ?? ''),
      ],
      [
        event,
        randomId(9),
        this.settings.retentionMs,
        this.settings.retainCount,
        COUNTER_TTL_MS,
        Date.now(),
        dedupeKey === undefined ? 0 : 1,
      ],
    );
    return seq;
  }

  /**
   * Replaces the kept event of `dedupeKey` (its number and stream unchanged) with `event`;
   * answers whether one was kept. Nothing is published: live connections got the original,
   * and the change that prompted the rewrite has its own event.
   */
  async rewriteLogged(address: string, dedupeKey: string, event: string): Promise<boolean> {
    const keys = keysOf(address);
    const rewritten = await this.state.run(
      rewriteEvent,
      [keys.eventPrefix, keys.dedupePrefix + dedupeKey],
      [event],
    );
    return rewritten === 1;
  }

  /** Publishes an ephemeral event to the user's open connections; nothing is kept. */
  publishEphemeral(address: string, event: string): Promise<void> {
    return this.state.publish(keysOf(address).channel, `|${Date.now()}|${event}`);
  }

  /** Whether the user has a connection open on some ws pod now (a pod holds their channel only then). */
  isConnected(address: string): Promise<boolean> {
    return this.state.hasSubscribers(keysOf(address).channel);
  }

  /**
   * `onResubscribed`: the subscription was lost and is back; what was published meanwhile never
   * reaches `handler`, and is read from the log (`checkReplay`, `frames`).
   */
  subscribe(
    address: string,
    handler: (event: StreamedEvent) => void,
    onResubscribed?: () => void,
  ): Promise<Unsubscribe> {
    return this.state.subscribe(
      keysOf(address).channel,
      (message) => handler(parseStreamed(message)),
      onResubscribed,
    );
  }

  /** The stream id and the number of the user's latest durable event (empty and 0 if none). */
  async position(address: string): Promise<{ stream: string; seq: number }> {
    const keys = keysOf(address);
    const [seq, stream] = await this.state.getMany([keys.seq, keys.stream]);
    return stream == null || seq == null ? { stream: '', seq: 0 } : { stream, seq: Number(seq) };
  }

  /**
   * Whether the durable events after `afterSeq` of stream `stream` (`''` with 0: from the start
   * of the current stream) can be replayed (`events`, up to `seq`), or the client must resync:
   * another stream, a number from the future, or a gap longer than what is kept. Events can
   * still expire before they are read: `frames` answers null then.
   */
  async checkReplay(address: string, stream: string, afterSeq: number): Promise<ReplayCheck> {
    const current = await this.position(address);
    // A client that has seen no event yet (stream '' at its greeting) may take any stream from its start.
    const sameStream = stream === current.stream || (stream === '' && afterSeq === 0);
    const replayable =
      sameStream && afterSeq <= current.seq && current.seq - afterSeq <= this.settings.retainCount;
    return { kind: replayable ? 'events' : 'resync', ...current };
  }

  /** The frames of events `from`..`to` (inclusive) in order; null when any has expired. */
  async frames(address: string, from: number, to: number): Promise<string[] | null> {
    const { eventPrefix } = keysOf(address);
    const frames = await this.state.getMany(
      Array.from({ length: to - from + 1 }, (_, i) => eventPrefix + (from + i)),
    );
    return frames.some((frame) => frame === null)
      ? null
      : (frames as string[]).map(withoutTraceparent);
  }
}

/** `<stream>|<published ms>|<frame>`; a durable frame starts with `{"seq":<n>,"stream":…`. */
function parseStreamed(message: string): StreamedEvent {
  const first = message.indexOf('|');
  const second = message.indexOf('|', first + 1);
  const { frame, traceparent } = splitTraceparent(message.slice(second + 1));
  const seq = frame.startsWith('{"seq":') ? Number.parseInt(frame.slice(7), 10) : 0;
  return {
    seq,
    stream: message.slice(0, first),
    publishedAt: Number(message.slice(first + 1, second)),
    frame,
    traceparent,
  };
}
