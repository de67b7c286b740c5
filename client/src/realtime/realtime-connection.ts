/**
 * The realtime connection (`/ws`, docs/realtime.md): a single-use ticket for each connection,
 * the greeting, numbered events handed over once each and in order, and reconnection with
 * backoff that resumes from the last event handled (`stream` + `last_seq`). When the service
 * cannot replay what was missed it says `resync_required`: the `resync` listeners re-read
 * history over REST, and the connection continues from the position the service gave.
 * Followed channels resume by their own sequences (`channels.resume`).
 */
import type { ApiCaller } from '../api-caller.js';
import { SessionEndedError } from '../api-error.js';
import { backoffDelay } from './backoff.js';
import type { BackoffPolicy } from './backoff.js';
import { typedData } from './realtime-events.js';
import type { EventDataMap, EventEnvelope, StreamPosition } from './realtime-events.js';

export type ConnectionState = 'connecting' | 'open' | 'waiting' | 'stopped';

export interface RealtimeOptions {
  /** The session the tickets are fetched with. */
  readonly api: ApiCaller;
  /** The service's origin (`https://…`; the socket goes to `wss://…/ws`). */
  readonly baseUrl: string;
  /** Where to resume from (kept by the application across restarts), if anywhere. */
  readonly position?: StreamPosition;
  /** Last channel post `sequence` seen per followed channel id. */
  readonly channelPositions?: Readonly<Record<string, number>>;
  /** The WebSocket class; default the global one (browsers; in Node 20 pass `ws`'s). */
  readonly WebSocket?: new (url: string) => WebSocket;
  readonly backoff?: BackoffPolicy;
}

export interface ResyncRequired {
  /** The position to continue from once history was re-read. */
  readonly position: StreamPosition;
  readonly reason: string;
}

type Listener<T> = (value: T, envelope: EventEnvelope) => void | Promise<void>;

interface ListenerMap {
  /** Every event, typed or not. */
  event: Listener<Record<string, unknown>>;
  resync: (required: ResyncRequired) => void | Promise<void>;
  'channel.resync': (channelId: string, sequence: number) => void | Promise<void>;
  state: (state: ConnectionState) => void;
  /** The session was ended (sign in again); the connection has stopped. */
  ended: (error: SessionEndedError) => void;
  /** The position moved (persist it to resume after a reload). */
  position: (position: StreamPosition) => void;
}

const SESSION_ENDED_REASON = 'session ended';

export class RealtimeConnection {
  private socket: WebSocket | undefined;
  private position: StreamPosition | undefined;
  private readonly channelPositions: Record<string, number>;
  private attempt = 0;
  private stopped = true;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  /** Frames are handled one after another, also when a listener is asynchronous. */
  private queue: Promise<void> = Promise.resolve();
  private readonly listeners = new Map<string, Set<(...args: never[]) => unknown>>();

  constructor(private readonly options: RealtimeOptions) {
    this.position = options.position;
    this.channelPositions = { ...options.channelPositions };
  }

  /** The last durable event handled. */
  get lastPosition(): StreamPosition | undefined {
    return this.position;
  }

  on<K extends keyof EventDataMap>(type: K, listener: Listener<EventDataMap[K]>): () => void;
  on<K extends keyof ListenerMap>(type: K, listener: ListenerMap[K]): () => void;
  on(type: string, listener: (...args: never[]) => unknown): () => void {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.connect();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.socket?.close(1000, 'client stopped');
    this.socket = undefined;
    this.emit('state', 'stopped');
  }

  /** Sends a client frame (docs/realtime.md, "Client frames"); false when not connected. */
  send(frame: { type: string; id?: string } & Record<string, unknown>): boolean {
    if (this.socket?.readyState !== 1) return false;
    this.socket.send(JSON.stringify(frame));
    return true;
  }

  private async connect(): Promise<void> {
    this.emit('state', 'connecting');
    let ticket: string;
    try {
      ({ ticket } = await this.options.api.call<{ ticket: string }>('POST', '/auth/ws-ticket', {}));
    } catch (error) {
      if (error instanceof SessionEndedError) return this.end(error);
      return this.retryLater();
    }
    if (this.stopped) return;
    const url = new URL('/ws', this.options.baseUrl.replace(/^http/, 'ws'));
    url.searchParams.set('ticket', ticket);
    if (this.position) {
      url.searchParams.set('stream', this.position.stream);
      url.searchParams.set('last_seq', String(this.position.seq));
    }
    const WebSocketClass = this.options.WebSocket ?? globalThis.WebSocket;
    const socket = new WebSocketClass(url.href);
    this.socket = socket;
    socket.addEventListener('message', (message) => {
      const frame = JSON.parse(String(message.data)) as EventEnvelope;
      this.queue = this.queue.then(() => this.handle(frame)).catch(() => undefined);
    });
    socket.addEventListener('close', (close) => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      if (close.code === 4401 && close.reason.includes(SESSION_ENDED_REASON))
        return this.end(new SessionEndedError(401, 'UNAUTHORIZED', close.reason));
      if (!this.stopped) this.retryLater();
    });
  }

  private async handle(frame: EventEnvelope): Promise<void> {
    switch (frame.type) {
      case 'hello':
        this.attempt = 0;
        this.emit('state', 'open');
        if (Object.keys(this.channelPositions).length > 0)
          this.send({ type: 'channels.resume', id: 'resume', positions: this.channelPositions });
        return;
      case 'resync_required': {
        const position = {
          stream: frame.stream!,
          seq: (frame as unknown as { seq: number }).seq,
        };
        await this.emitAsync('resync', {
          position,
          reason: String((frame as unknown as { reason: string }).reason),
        });
        return this.advance(position);
      }
      case 'channel.resync_required': {
        const sequence = (frame as unknown as { sequence: number }).sequence;
        await this.emitAsync('channel.resync', frame.channel_id!, sequence);
        this.channelPositions[frame.channel_id!] = sequence;
        return;
      }
      case 'ack':
      case 'pong':
      case 'error':
        return;
    }
    if (this.isSeen(frame)) return;
    const data = typedData(frame);
    await this.emitAsync(frame.type, data, frame);
    await this.emitAsync('event', data, frame);
    if (frame.seq !== undefined && frame.stream !== undefined)
      this.advance({ stream: frame.stream, seq: frame.seq });
    if (frame.type === 'channel.post' && frame.sequence !== undefined)
      this.channelPositions[frame.channel_id!] = frame.sequence;
  }

  /** A durable event or channel post already handled (a replay overlapping what came live). */
  private isSeen(frame: EventEnvelope): boolean {
    const position = this.position;
    if (frame.seq !== undefined)
      return (
        position !== undefined && frame.stream === position.stream && frame.seq <= position.seq
      );
    if (frame.type === 'channel.post' && frame.sequence !== undefined)
      return frame.sequence <= (this.channelPositions[frame.channel_id!] ?? 0);
    return false;
  }

  private advance(position: StreamPosition): void {
    this.position = position;
    this.emit('position', position);
  }

  private retryLater(): void {
    if (this.stopped) return;
    this.emit('state', 'waiting');
    this.retryTimer = setTimeout(
      () => void this.connect(),
      backoffDelay(this.attempt++, this.options.backoff),
    );
  }

  private end(error: SessionEndedError): void {
    this.stop();
    this.emit('ended', error);
  }

  private emit(type: string, ...args: unknown[]): void {
    for (const listener of this.listeners.get(type) ?? [])
      (listener as (...a: unknown[]) => void)(...args);
  }

  private async emitAsync(type: string, ...args: unknown[]): Promise<void> {
    for (const listener of this.listeners.get(type) ?? [])
      await (listener as (...a: unknown[]) => unknown)(...args);
  }
}
