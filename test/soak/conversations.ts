/**
 * The conversations the soak writes to, and their senders: direct chats (some messages with an
 * attachment), a group with two senders numbering into one sequence, and a channel. Each sender
 * writes one message at a time, as a client does, and retries a send that was not acknowledged
 * with the same `client_message_id` until it is, as the spec tells clients to; after the load
 * stops it keeps retrying its last message for a while (the drain), so that a message sent
 * into the last fault is not counted as refused. Now and then a sender edits its last message
 * and the reader reacts to it.
 */
import { sleep } from '../support/session-api.js';
import type { SignedIn } from '../support/wallet.js';
import type { ApiEndpoint } from '../faults/support/realtime-device.js';
import type { Recorder } from './recorder.js';
import type { SeededRandom } from './seeded-random.js';

export type ConversationKind = 'direct' | 'group' | 'channel';

export interface Acknowledged {
  readonly id: string;
  readonly clientMessageId: string;
  readonly sequence: number;
  /** When the attempt that was acknowledged started (ms since the soak started). */
  readonly sentAt: number;
  readonly acknowledgedAt: number;
}

export interface SoakConversation {
  readonly kind: ConversationKind;
  readonly label: string;
  readonly senders: readonly SignedIn[];
  /** Who reads the history back (and, in a direct chat, whose device gets every message). */
  readonly reader: SignedIn;
  /** The request fields that name the conversation when sending. */
  readonly target: Record<string, string>;
  /** The request fields that name it for an edit or a reaction by the sender / by the reader. */
  readonly senderSide: Record<string, string>;
  readonly readerSide: Record<string, string>;
  readonly acknowledged: Acknowledged[];
}

/** Pause between two messages of one sender: a modest load on a shared 2-core machine. */
const PACE_MS = [60, 240] as const;
const RETRY_MS = 150;
/** How long a sender keeps retrying its last message after the load stopped. */
const DRAIN_MS = 30_000;
const ATTACHMENT_CHANCE = 0.1;
const EDIT_CHANCE = 0.05;
const REACTION_CHANCE = 0.05;

export class ConversationSenders {
  private running = true;
  private stoppedAt = Infinity;
  private readonly loops: Promise<void>[];

  constructor(
    private readonly api: ApiEndpoint,
    private readonly recorder: Recorder,
    readonly conversations: readonly SoakConversation[],
    random: SeededRandom,
  ) {
    this.loops = conversations.flatMap((conversation) =>
      conversation.senders.map((sender, index) =>
        this.sendLoop(conversation, sender, `${conversation.label}-${index}`, random.fork()),
      ),
    );
  }

  /** Stops new messages; resolves when every sender's last message was acknowledged or drained out. */
  async stop(): Promise<void> {
    this.running = false;
    this.stoppedAt = Date.now();
    await Promise.all(this.loops);
  }

  private draining(): boolean {
    return this.running || Date.now() < this.stoppedAt + DRAIN_MS;
  }

  private async sendLoop(
    conversation: SoakConversation,
    sender: SignedIn,
    tag: string,
    random: SeededRandom,
  ): Promise<void> {
    for (let n = 1; this.running; n += 1) {
      const withAttachment = conversation.kind !== 'channel' && random.chance(ATTACHMENT_CHANCE);
      const media = withAttachment ? await this.upload(sender) : undefined;
      if (withAttachment && media === undefined) return;
      const acknowledged = await this.send(conversation, sender, `${tag}-${n}`, media);
      if (acknowledged === undefined) return;
      conversation.acknowledged.push(acknowledged);
      if (conversation.kind !== 'channel' && random.chance(EDIT_CHANCE))
        await this.recorder.call('edit', this.api.baseUrl, {
          path: '/api/v1/messages/edit',
          body: {
            ...conversation.senderSide,
            message_id: acknowledged.id,
            ciphertext: b64(`edited ${tag}-${n}`),
          },
          session: sender,
        });
      if (conversation.kind !== 'channel' && random.chance(REACTION_CHANCE))
        await this.recorder.call('reaction', this.api.baseUrl, {
          path: '/api/v1/messages/react',
          body: { ...conversation.readerSide, message_id: acknowledged.id, ciphertext: b64('+1') },
          session: conversation.reader,
        });
      await sleep(random.between(...PACE_MS));
    }
  }

  /** Sends until acknowledged (undefined: drained out, or refused for good). */
  private async send(
    conversation: SoakConversation,
    sender: SignedIn,
    clientMessageId: string,
    mediaId: string | undefined,
  ): Promise<Acknowledged | undefined> {
    const kind = mediaId ? 'send with attachment' : `${conversation.kind} send`;
    const path =
      conversation.kind === 'channel'
        ? `/api/v1/channels/${conversation.target.channel_id}/posts`
        : mediaId
          ? '/api/v1/file/send'
          : '/api/v1/send';
    const body = {
      ...conversation.target,
      client_message_id: clientMessageId,
      ciphertext: b64(`soak ${clientMessageId}`),
      ...(mediaId ? { media_id: mediaId } : {}),
    };
    while (this.draining()) {
      const sentAt = this.recorder.now();
      const answer = await this.recorder.call(kind, this.api.baseUrl, {
        path,
        body,
        session: sender,
      });
      if (answer.outcome === 200) {
        const message = answer.body.chat_message as { id: string; sequence: number };
        return {
          id: message.id,
          clientMessageId,
          sequence: message.sequence,
          sentAt,
          acknowledgedAt: this.recorder.now(),
        };
      }
      if (!retryable(answer.outcome)) return undefined;
      await sleep(RETRY_MS);
    }
    return undefined;
  }

  /** Uploads an attachment until it is stored; its media id (undefined: drained out). */
  private async upload(sender: SignedIn): Promise<string | undefined> {
    while (this.draining()) {
      const answer = await this.recorder.call('upload', this.api.baseUrl, {
        path: '/api/v1/upload-media',
        body: {
          kind: 'file',
          content_type: 'application/octet-stream',
          data: b64('attachment bytes'),
        },
        session: sender,
      });
      if (answer.outcome === 200) return answer.body.media_id as string;
      if (!retryable(answer.outcome)) return undefined;
      await sleep(RETRY_MS);
    }
    return undefined;
  }
}

/** What a client retries: no answer, 429, and the 5xx of an outage. */
export const retryable = (outcome: number | string) =>
  typeof outcome !== 'number' || outcome === 429 || outcome >= 500;

export const b64 = (text: string) => Buffer.from(text).toString('base64');
