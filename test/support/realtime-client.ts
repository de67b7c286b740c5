/**
 * A real WebSocket client (`ws`) of the realtime protocol (docs/realtime.md): connects with a
 * fresh ticket, optionally resuming from a position, records every frame, and waits for the
 * frames a test expects.
 */
import WebSocket from 'ws';
import type { Json } from './json.js';

export interface Frame {
  readonly type: string;
  readonly [field: string]: Json;
}

export interface ResumeFrom {
  readonly stream: string;
  readonly seq: number;
}

/**
 * How long a ticket request or an upgrade may take: a paused or wedged pod can accept the TCP
 * connection and never answer, and without a bound a client reconnecting to it (and whoever
 * waits for that client) would wait forever.
 */
const CONNECT_TIMEOUT_MS = 15_000;

/** POST /api/v1/auth/ws-ticket on an api process. */
export async function wsTicket(apiBaseUrl: string, accessToken: string): Promise<string> {
  const response = await fetch(`${apiBaseUrl}/api/v1/auth/ws-ticket`, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
    body: '{}',
    signal: AbortSignal.timeout(CONNECT_TIMEOUT_MS),
  });
  if (response.status !== 200) throw new Error(`ws-ticket: ${response.status}`);
  return ((await response.json()) as { ticket: string }).ticket;
}

export class RealtimeClient {
  readonly frames: Frame[] = [];
  closeCode: number | undefined;
  closeReason = '';
  /** A protocol error the client library reported (it then closes with 1006). */
  error: Error | undefined;
  private waiters: (() => void)[] = [];

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      // binaryType is ws's default, 'nodebuffer': each message is one Buffer.
      this.frames.push(JSON.parse((data as Buffer).toString()) as Frame);
      this.wake();
    });
    socket.on('error', (error) => {
      this.error = error;
    });
    socket.on('close', (code, reason) => {
      this.closeCode = code;
      this.closeReason = reason.toString();
      this.wake();
    });
  }

  /** Opens /ws on `wsBaseUrl` with a ticket issued by `apiBaseUrl`, and waits for the greeting. */
  static async connect(
    apiBaseUrl: string,
    wsBaseUrl: string,
    accessToken: string,
    resume?: ResumeFrom,
    socketOptions: WebSocket.ClientOptions = {},
  ): Promise<RealtimeClient> {
    const url = new URL('/ws', wsBaseUrl.replace(/^http/, 'ws'));
    url.searchParams.set('ticket', await wsTicket(apiBaseUrl, accessToken));
    if (resume) {
      url.searchParams.set('stream', resume.stream);
      url.searchParams.set('last_seq', String(resume.seq));
    }
    const client = new RealtimeClient(
      new WebSocket(url, { handshakeTimeout: CONNECT_TIMEOUT_MS, ...socketOptions }),
    );
    await new Promise<void>((resolve, reject) => {
      client.socket.once('open', () => resolve());
      client.socket.once('error', reject);
    });
    await client.next('hello');
    return client;
  }

  get hello(): Frame {
    return this.frames.find((frame) => frame.type === 'hello')!;
  }

  /** The position to resume from: the last durable event received, else the greeting's. */
  get position(): ResumeFrom {
    const positions = this.frames.filter(
      (frame) => typeof frame.seq === 'number' && typeof frame.stream === 'string',
    );
    const last = positions[positions.length - 1]!;
    return { stream: last.stream, seq: last.seq! };
  }

  /** The frames of a type, in arrival order. */
  ofType(type: string): Frame[] {
    return this.frames.filter((frame) => frame.type === type);
  }

  /** Waits for the `count`-th frame of `type` (or matching `where`) and returns it. */
  async next(
    type: string,
    where: (frame: Frame) => boolean = () => true,
    timeoutMs = 5000,
    count = 1,
  ): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const matches = this.frames.filter((frame) => frame.type === type && where(frame));
      if (matches.length >= count) return matches[count - 1]!;
      if (this.closeCode !== undefined)
        throw new Error(
          `closed (${this.closeCode} ${this.closeReason}${this.error ? `; ${this.error.message}` : ''}) before a ${type} frame`,
        );
      const remaining = deadline - Date.now();
      if (remaining <= 0)
        throw new Error(
          `no ${type} frame within ${timeoutMs} ms; got ${JSON.stringify(this.frames.map((frame) => frame.type))}`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Sends a client frame and waits for its `ack` or `error`. */
  async request(frame: Record<string, unknown>): Promise<Frame> {
    const id = `f${Math.random().toString(36).slice(2)}`;
    this.socket.send(JSON.stringify({ ...frame, id }));
    const answered = (candidate: Frame) => candidate.ref === id;
    return Promise.race([
      this.next('ack', answered),
      this.next('error', answered),
      this.next('pong', answered),
    ]);
  }

  async waitClosed(timeoutMs = 5000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (this.closeCode === undefined) {
      if (Date.now() > deadline) throw new Error('still open');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.closeCode;
  }

  close(): void {
    this.socket.close();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

/**
 * `connect(session)` for one test file: a WebSocket client of `service` as the session's user,
 * closed after the file's tests. `service.baseUrl` is read at each call, so it may be a service
 * the file starts in its `beforeAll`.
 */
export function realtimeClientsForThisFile(service: { readonly baseUrl: string }) {
  const clients: RealtimeClient[] = [];
  afterAll(() => {
    for (const client of clients) client.close();
  });
  return async (session: { readonly accessToken: string }): Promise<RealtimeClient> => {
    const client = await RealtimeClient.connect(
      service.baseUrl,
      service.baseUrl,
      session.accessToken,
    );
    clients.push(client);
    return client;
  };
}
