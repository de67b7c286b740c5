/**
 * The load a fault hits: senders posting messages over REST, each to its own recipient, one
 * request at a time per sender, as a client does. A send that is not acknowledged (no answer,
 * or an error status) is retried with the same `client_message_id` until it is, as the spec
 * tells clients to; so a message the server stored but could not confirm comes back as a
 * `duplicate`. The ledger keeps what was acknowledged (a 200) and every refusal, with times, so
 * the checks can ask "is every acknowledged message there" and the report "how long, how many".
 */
import type { SignedIn } from '../../support/wallet.js';
import { bearer } from '../../support/wallet.js';
import { sleep } from '../../support/session-api.js';

export interface Conversation {
  readonly sender: SignedIn;
  readonly recipient: SignedIn;
}

export interface Acknowledged {
  /** Milliseconds since the load started. */
  readonly at: number;
  readonly id: string;
  readonly clientMessageId: string;
  readonly sequence: number;
  readonly duplicate: boolean;
}

/** A send that was not acknowledged: its HTTP answer, or why there was none. */
export interface Refusal {
  /** Milliseconds since the load started. */
  readonly at: number;
  /** How long the request took to fail. */
  readonly tookMs: number;
  readonly status: number | 'no connection' | 'timeout';
  readonly code?: string;
  readonly retryAfter?: string | null;
}

/** How long a client waits before retrying a send that was not acknowledged. */
const RETRY_DELAY_MS = 100;
/** Pause between two sends of one sender: enough load to be in flight at any moment, little CPU. */
const PACE_MS = 15;
const REQUEST_TIMEOUT_MS = 10_000;

export class MessageLoad {
  readonly acknowledged = new Map<Conversation, Acknowledged[]>();
  readonly refusals: Refusal[] = [];
  private readonly startedAt = Date.now();
  private running = true;
  private readonly loops: Promise<void>[];

  /** Starts one sending loop per conversation against the api process, wherever it answers. */
  constructor(
    private readonly api: { readonly baseUrl: string },
    readonly conversations: readonly Conversation[],
    private readonly label: string,
  ) {
    this.loops = conversations.map((conversation, index) =>
      this.sendLoop(conversation, `${label}-${index}`),
    );
  }

  /** Milliseconds since the load started (the time base of `refusals`). */
  now(): number {
    return Date.now() - this.startedAt;
  }

  /** The first acknowledgement at or after `at` (ms since the start), if any yet. */
  firstAcknowledgedAfter(at: number): number | undefined {
    const times = [...this.acknowledged.values()]
      .flatMap((list) => list.map((message) => message.at))
      .filter((time) => time >= at);
    return times.length === 0 ? undefined : Math.min(...times);
  }

  get acknowledgedCount(): number {
    return [...this.acknowledged.values()].reduce((sum, list) => sum + list.length, 0);
  }

  /** Resolves once `count` more messages than now have been acknowledged. */
  async acknowledgedMore(count: number, timeoutMs = 20_000): Promise<void> {
    const target = this.acknowledgedCount + count;
    const deadline = Date.now() + timeoutMs;
    while (this.acknowledgedCount < target) {
      if (Date.now() > deadline)
        throw new Error(
          `load: ${this.acknowledgedCount} acknowledged, expected ${target} within ${timeoutMs} ms; last refusals ${JSON.stringify(this.refusals.slice(-3))}`,
        );
      await sleep(20);
    }
  }

  /** Stops sending; each sender finishes (or gives up) its request in flight. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  private async sendLoop(conversation: Conversation, tag: string): Promise<void> {
    const acknowledged: Acknowledged[] = [];
    this.acknowledged.set(conversation, acknowledged);
    for (let n = 1; this.running; n += 1) {
      const clientMessageId = `${tag}-${n}`;
      const body = JSON.stringify({
        client_message_id: clientMessageId,
        recipient_address: conversation.recipient.user.address,
        ciphertext: Buffer.from(`${this.label} ${tag} #${n}`).toString('base64'),
      });
      while (this.running) {
        const sentAt = Date.now();
        const answer = await this.post(body, conversation.sender);
        if (answer.status === 200) {
          const { chat_message: message, duplicate } = answer.body as {
            chat_message: { id: string; sequence: number };
            duplicate: boolean;
          };
          acknowledged.push({
            at: this.now(),
            id: message.id,
            clientMessageId,
            sequence: message.sequence,
            duplicate,
          });
          break;
        }
        this.refusals.push({
          at: sentAt - this.startedAt,
          tookMs: Date.now() - sentAt,
          status: answer.status,
          code: answer.code,
          retryAfter: answer.retryAfter,
        });
        await sleep(RETRY_DELAY_MS);
      }
      await sleep(PACE_MS);
    }
  }

  private async post(
    body: string,
    sender: SignedIn,
  ): Promise<{
    status: Refusal['status'];
    body?: unknown;
    code?: string;
    retryAfter?: string | null;
  }> {
    try {
      const response = await fetch(`${this.api.baseUrl}/api/v1/send`, {
        method: 'POST',
        headers: { ...bearer(sender), 'content-type': 'application/json' },
        body,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const parsed = (await response.json().catch(() => undefined)) as
        { code?: string } | undefined;
      return {
        status: response.status,
        body: parsed,
        code: parsed?.code,
        retryAfter: response.headers.get('retry-after'),
      };
    } catch (error) {
      return { status: (error as Error).name === 'TimeoutError' ? 'timeout' : 'no connection' };
    }
  }
}

/** Pairs of newly registered users, each sender writing to its own recipient. */
export async function conversations(
  signIn: () => Promise<SignedIn>,
  count: number,
): Promise<Conversation[]> {
  const pairs: Conversation[] = [];
  for (let i = 0; i < count; i += 1)
    pairs.push({ sender: await signIn(), recipient: await signIn() });
  return pairs;
}
