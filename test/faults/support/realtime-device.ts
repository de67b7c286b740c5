/**
 * A user's device on /ws that behaves like the client app of docs/realtime.md: it stays
 * connected, and whenever its connection closes it reconnects — to the next ws pod of its list,
 * with the position of the last durable event it processed — until it is stopped. It records,
 * across its connections, every `message.new` it was handed and every `resync_required`, so a
 * check can tell exact delivery from a silent gap.
 */
import type { ChildService } from '../../support/child-service.js';
import { RealtimeClient } from '../../support/realtime-client.js';
import type { Frame, ResumeFrom } from '../../support/realtime-client.js';
import { sleep } from '../../support/session-api.js';
import type { SignedIn } from '../../support/wallet.js';

/**
 * What the device saw, in order: a message handed over, or the order to re-read REST; `at`
 * (epoch ms) is when it arrived: a re-read after a resync has every message stored before it.
 */
export type Seen =
  | { readonly kind: 'message'; readonly id: string; readonly frame: Frame; readonly at: number }
  | { readonly kind: 'resync'; readonly frame: Frame; readonly at: number };

const RECONNECT_DELAY_MS = 200;

/** Where the api answers now: a process whose `baseUrl` changes when it is restarted. */
export interface ApiEndpoint {
  readonly baseUrl: string;
}

export class RealtimeDevice {
  readonly seen: Seen[] = [];
  /** Close codes of its connections, and of reconnection attempts refused after the upgrade. */
  readonly closeCodes: number[] = [];
  /** Reconnection attempts that got no connection at all (no ticket, connection refused). */
  failedAttempts = 0;
  private client: RealtimeClient | undefined;
  private position: ResumeFrom | undefined;
  private podIndex: number;
  private running = true;
  private reconnecting: Promise<void> = Promise.resolve();

  private constructor(
    private readonly api: ApiEndpoint,
    private readonly pods: readonly ChildService[],
    private readonly session: SignedIn,
    firstPod: number,
  ) {
    this.podIndex = firstPod;
  }

  /**
   * Connects to `pods[firstPod]`; later reconnections go round the list from there. Tickets
   * come from `api` where it answers at that moment (a restarted process has new ports).
   */
  static async connect(
    api: ApiEndpoint,
    pods: readonly ChildService[],
    session: SignedIn,
    firstPod = 0,
  ): Promise<RealtimeDevice> {
    const device = new RealtimeDevice(api, pods, session, firstPod);
    device.adopt(
      await RealtimeClient.connect(api.baseUrl, pods[firstPod]!.baseUrl, session.accessToken),
    );
    return device;
  }

  get delivered(): string[] {
    return this.seen.flatMap((entry) => (entry.kind === 'message' ? [entry.id] : []));
  }

  get resyncs(): Frame[] {
    return this.seen.flatMap((entry) => (entry.kind === 'resync' ? [entry.frame] : []));
  }

  /** Waits until message `id` was handed over (on any connection). */
  async received(id: string, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.delivered.includes(id)) {
      if (Date.now() > deadline)
        throw new Error(
          `message ${id} not delivered within ${timeoutMs} ms; close codes ${JSON.stringify(this.closeCodes)}, ${this.failedAttempts} failed reconnection attempts, ${this.resyncs.length} resyncs`,
        );
      await sleep(50);
    }
  }

  /** Waits until the device has an open connection past its greeting. */
  async connected(timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.client === undefined || this.client.closeCode !== undefined) {
      if (Date.now() > deadline)
        throw new Error(
          `not reconnected within ${timeoutMs} ms; close codes ${JSON.stringify(this.closeCodes)}`,
        );
      await sleep(50);
    }
  }

  /** Drops the connection without a goodbye, as a phone losing its network: the device reconnects. */
  drop(): void {
    this.client?.socket.terminate();
  }

  /**
   * A slow consumer: stops reading its socket for `ms` (frames queue in the kernel and then on
   * the server, which may close it with 1013 and leave the rest to the replay).
   */
  async readSlowly(ms: number): Promise<void> {
    const socket = this.client?.socket;
    socket?.pause();
    await sleep(ms);
    socket?.resume();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.client?.close();
    await this.reconnecting;
  }

  private adopt(client: RealtimeClient): void {
    this.client = client;
    // Frames that arrived with the greeting are already in `client.frames`; later ones come
    // through the listener. Both are taken in this one synchronous step, so none is seen twice.
    for (const frame of client.frames) this.record(frame);
    client.socket.on('message', (data) =>
      this.record(JSON.parse((data as Buffer).toString()) as Frame),
    );
    client.socket.once('close', (code) => {
      this.closeCodes.push(code);
      if (this.running) this.reconnecting = this.reconnect();
    });
  }

  private record(frame: Frame): void {
    const at = Date.now();
    if (frame.type === 'message.new')
      this.seen.push({ kind: 'message', id: frame.data.message.id, frame, at });
    if (frame.type === 'resync_required') this.seen.push({ kind: 'resync', frame, at });
    // The greeting's position is the stream's head, not what this device has processed (a
    // replay may follow it): it only counts when nothing else is known yet.
    if (frame.type === 'hello' && this.position !== undefined) return;
    if (typeof frame.seq === 'number' && typeof frame.stream === 'string')
      this.position = { stream: frame.stream, seq: frame.seq };
  }

  private async reconnect(): Promise<void> {
    while (this.running) {
      this.podIndex = (this.podIndex + 1) % this.pods.length;
      try {
        const client = await RealtimeClient.connect(
          this.api.baseUrl,
          this.pods[this.podIndex]!.baseUrl,
          this.session.accessToken,
          this.position,
        );
        if (!this.running) return client.close();
        return this.adopt(client);
      } catch (error) {
        const refused = /^closed \((\d+)/.exec((error as Error).message);
        if (refused) this.closeCodes.push(Number(refused[1]));
        else this.failedAttempts += 1;
        await sleep(RECONNECT_DELAY_MS);
      }
    }
  }
}
