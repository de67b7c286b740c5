/**
 * WebRTC call signaling over /ws: offer, answer, ICE candidates and hang-up, relayed to the
 * other party's connections on whichever pods hold them, as ephemeral events (never stored).
 *
 * A call exists from its offer: the pair (caller, callee) is recorded in shared state under
 * the client-chosen call id, so only those two can signal on it afterwards and nobody can
 * inject candidates into someone else's call. Calls between users where either has blocked
 * the other are refused with the same answer as any other refusal (`CALL_REFUSED`), so a
 * caller cannot tell a block from an unreachable callee.
 *
 * A new call also wakes the callee's devices that have no live connection (a push notification
 * of kind `call`), through `WakeCallee`: the push area is above realtime, so it comes in as a
 * function.
 *
 * Limits (spec): signaling frames 10 per minute, burst 5, per user; ICE candidates 100 per
 * minute, burst 30, per user; 50 ICE candidates per call for both parties together.
 */
import { isWalletAddress } from '../../accounts/wallet-address.js';
import type { BlockMirror } from '../../contacts/block-mirror.js';
import type { WsFrameLimits, WsVerdict } from '../../limits/ws-limits.js';
import type { SharedState } from '../../platform/shared-state/shared-state.js';
import { eventJson } from '../../events/event-envelope.js';
import type { UserEventStream } from '../../events/user-event-stream.js';
import { FrameError } from '../frame-error.js';

export const CALL_FRAME_TYPES = [
  'call.offer',
  'call.answer',
  'call.ice_candidate',
  'call.hangup',
] as const;
export type CallFrameType = (typeof CALL_FRAME_TYPES)[number];

const CALL_ID = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_SDP_LENGTH = 16_384;
const MAX_CANDIDATE_LENGTH = 4096;
/** Longer than any call; the record only exists to bind the call id to its two parties. */
const CALL_TTL_MS = 4 * 60 * 60 * 1000;

/** Wakes the callee's offline devices for an incoming call; never throws. */
export type WakeCallee = (callee: string) => void;

interface CallParties {
  readonly caller: string;
  readonly callee: string;
}

export class CallSignaling {
  constructor(
    private readonly state: SharedState,
    private readonly events: UserEventStream,
    private readonly limits: WsFrameLimits,
    private readonly blocks: BlockMirror,
    private readonly wakeCallee: WakeCallee,
  ) {}

  /** Relays one call frame from `from`; throws FrameError when it is refused. */
  async handle(from: string, type: CallFrameType, frame: Record<string, unknown>): Promise<void> {
    const callId = text(
      frame,
      'call_id',
      CALL_ID,
      'call_id must be 1 to 64 characters from A-Z, a-z, 0-9, _ and -',
    );
    if (type === 'call.ice_candidate') return this.iceCandidate(from, callId, frame);
    refuseUnless(await this.limits.signaling(from));
    if (type === 'call.offer') return this.offer(from, callId, frame);
    const parties = await this.partiesOf(callId, from);
    const to = parties.caller === from ? parties.callee : parties.caller;
    if (type === 'call.answer') {
      if (from !== parties.callee)
        throw new FrameError('FORBIDDEN', 'Only the callee answers a call');
      return this.relay(to, 'call.answer', {
        call_id: callId,
        from_address: from,
        sdp: sdpOf(frame),
      });
    }
    const reason =
      frame.reason === undefined
        ? ''
        : text(frame, 'reason', /^[\w .-]{0,64}$/, 'reason has at most 64 plain characters');
    await this.state.delete(callKey(callId));
    return this.relay(to, 'call.hangup', { call_id: callId, from_address: from, reason });
  }

  private async offer(from: string, callId: string, frame: Record<string, unknown>): Promise<void> {
    const to =
      typeof frame.to === 'string' && isWalletAddress(frame.to)
        ? frame.to.toLowerCase()
        : undefined;
    if (!to) throw new FrameError('INVALID_ARGUMENT', 'to must be a wallet address');
    if (to === from) throw new FrameError('INVALID_ARGUMENT', 'A call needs another user');
    const media = frame.media ?? 'audio';
    if (media !== 'audio' && media !== 'video')
      throw new FrameError('INVALID_ARGUMENT', 'media must be audio or video');
    const sdp = sdpOf(frame);
    if (await this.blocks.eitherBlocks(from, to))
      throw new FrameError('CALL_REFUSED', 'The call cannot be placed');
    const parties = `${from}|${to}`;
    const created = await this.state.set(callKey(callId), parties, {
      ttlMs: CALL_TTL_MS,
      onlyIfAbsent: true,
    });
    // A repeated offer on the same call (renegotiation) is fine; a call id of other parties is not.
    if (!created && (await this.state.get(callKey(callId))) !== parties)
      throw new FrameError('CONFLICT', 'call_id is in use');
    await this.relay(to, 'call.offer', { call_id: callId, from_address: from, media, sdp });
    if (created) this.wakeCallee(to);
  }

  private async iceCandidate(
    from: string,
    callId: string,
    frame: Record<string, unknown>,
  ): Promise<void> {
    const parties = await this.partiesOf(callId, from);
    const candidate = text(
      frame,
      'candidate',
      undefined,
      'candidate must be a string',
      MAX_CANDIDATE_LENGTH,
    );
    const sdpMid =
      frame.sdp_mid === undefined
        ? null
        : text(frame, 'sdp_mid', /^.{0,64}$/, 'sdp_mid has at most 64 characters');
    const index = frame.sdp_mline_index;
    if (
      index !== undefined &&
      !(Number.isInteger(index) && (index as number) >= 0 && (index as number) < 1024)
    ) {
      throw new FrameError(
        'INVALID_ARGUMENT',
        'sdp_mline_index must be a small non-negative integer',
      );
    }
    refuseUnless(await this.limits.iceCandidate(from, callId));
    const to = parties.caller === from ? parties.callee : parties.caller;
    return this.relay(to, 'call.ice_candidate', {
      call_id: callId,
      from_address: from,
      candidate,
      sdp_mid: sdpMid,
      sdp_mline_index: index ?? null,
    });
  }

  private async partiesOf(callId: string, from: string): Promise<CallParties> {
    const stored = await this.state.get(callKey(callId));
    const [caller, callee] = stored?.split('|') ?? [];
    // Someone else's call looks exactly like no call: call ids are not an oracle.
    if (!caller || !callee || (from !== caller && from !== callee))
      throw new FrameError('NOT_FOUND', 'No such call');
    return { caller, callee };
  }

  private relay(to: string, type: CallFrameType, data: Record<string, unknown>): Promise<void> {
    return this.events.publishEphemeral(to, eventJson(type, data));
  }
}

const callKey = (callId: string) => `call:${callId}`;

function sdpOf(frame: Record<string, unknown>): string {
  return text(frame, 'sdp', undefined, 'sdp must be a non-empty string', MAX_SDP_LENGTH);
}

function text(
  frame: Record<string, unknown>,
  field: string,
  pattern: RegExp | undefined,
  message: string,
  maxLength = 1024,
): string {
  const value = frame[field];
  if (
    typeof value !== 'string' ||
    value.length > maxLength ||
    (pattern ? !pattern.test(value) : value === '')
  ) {
    throw new FrameError('INVALID_ARGUMENT', message);
  }
  return value;
}

function refuseUnless(verdict: WsVerdict): void {
  if (verdict.allowed) return;
  const retryAfterSeconds =
    verdict.retryAfterMs === null ? null : Math.max(1, Math.ceil(verdict.retryAfterMs / 1000));
  throw new FrameError(
    'RATE_LIMIT_EXCEEDED',
    `WebSocket limit exceeded (${verdict.refusedBy})`,
    retryAfterSeconds,
  );
}
