/** The client frames' shape on /ws (docs/realtime.md, "Client frames"): parsing and validation only. */
import { FrameError } from './frame-error.js';

/** The most a client frame may weigh (uWS closes a connection that sends more). */
export const MAX_FRAME_BYTES = 64 * 1024;
const FRAME_ID = /^[\w.:-]{1,64}$/;

/** The client frame that catches a connection up on its channels (docs/realtime.md, "Channels"). */
export const CHANNELS_RESUME = 'channels.resume';
/** Channels one `channels.resume` may name (the most a user can follow is far below). */
const MAX_RESUME_CHANNELS = 10_000;
const CHANNEL_ID = /^[\w-]{1,64}$/;

export interface ClientFrame {
  readonly type: string;
  /** The frame's `id`, echoed as `ref` in the answer. */
  readonly ref: string | null;
  readonly body: Record<string, unknown>;
}

export function parseFrame(text: string): ClientFrame {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new FrameError('INVALID_ARGUMENT', 'A frame is a JSON object');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new FrameError('INVALID_ARGUMENT', 'A frame is a JSON object');
  const frame = body as Record<string, unknown>;
  if (typeof frame.type !== 'string')
    throw new FrameError('INVALID_ARGUMENT', 'A frame needs a string type');
  if (frame.id !== undefined && (typeof frame.id !== 'string' || !FRAME_ID.test(frame.id))) {
    throw new FrameError(
      'INVALID_ARGUMENT',
      'id is 1 to 64 characters from A-Z, a-z, 0-9, _ . : -',
    );
  }
  return { type: frame.type, ref: frame.id ?? null, body: frame };
}

/** `positions`: an object of channel id to the last post number seen (a whole number). */
export function channelPositionsOf(body: Record<string, unknown>): Map<string, number> {
  return numbersByChannel(body.positions, 'positions', 'post sequence');
}

/**
 * `change_positions` (optional): an object of channel id to the last `change_sequence` seen;
 * empty when absent (the client replays no changes).
 */
export function channelChangePositionsOf(body: Record<string, unknown>): Map<string, number> {
  if (body.change_positions === undefined) return new Map();
  return numbersByChannel(body.change_positions, 'change_positions', 'change_sequence');
}

function numbersByChannel(value: unknown, field: string, what: string): Map<string, number> {
  const refuse = () =>
    new FrameError(
      'INVALID_ARGUMENT',
      `${field} is an object of at most ${MAX_RESUME_CHANNELS} channel ids to the last ${what} seen (a whole number)`,
    );
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw refuse();
  const entries = Object.entries(value);
  if (entries.length > MAX_RESUME_CHANNELS) throw refuse();
  for (const [channelId, seen] of entries) {
    if (
      !CHANNEL_ID.test(channelId) ||
      typeof seen !== 'number' ||
      !Number.isSafeInteger(seen) ||
      seen < 0 ||
      seen > 0xffffffff
    )
      throw refuse();
  }
  return new Map(entries as [string, number][]);
}
