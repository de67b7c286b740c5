/**
 * The frames of `/ws` (docs/realtime.md) as types. Events that carry a `Message` hand it over
 * as the generated protobuf-es `Message` (bytes as `Uint8Array`), parsed from the JSON the
 * service prints; the other payloads keep their JSON field names.
 */
import { fromJson } from '@bufbuild/protobuf';
import type { JsonValue } from '@bufbuild/protobuf';
import type { Message } from '../gen/service/v1/messages_pb.js';
import { MessageSchema } from '../gen/service/v1/messages_pb.js';

/** A user's place in its numbered event stream: resume from here. */
export interface StreamPosition {
  readonly stream: string;
  readonly seq: number;
}

/** The envelope of every event frame. */
export interface EventEnvelope {
  readonly type: string;
  readonly id: string;
  readonly at: string;
  /** Durable events only. */
  readonly seq?: number;
  readonly stream?: string;
  /** Channel events only. */
  readonly channel_id?: string;
  readonly sequence?: number;
  readonly data: Record<string, unknown>;
}

/** The payloads the SDK types; every other event comes as `event` with its raw `data`. */
export interface EventDataMap {
  'message.new': { readonly message: Message };
  'message.edited': { readonly message: Message };
  'message.deleted': {
    readonly conversation_id: string;
    readonly message_id: string;
    readonly deleted_by: string;
    readonly message: Message;
  };
  'message.reaction': {
    readonly conversation_id: string;
    readonly message_id: string;
    readonly reactor_address: string;
    /** The encrypted reaction, base64; null when it was removed. */
    readonly ciphertext: string | null;
    readonly removed: boolean;
  };
  'message.read': {
    readonly conversation_id: string;
    readonly reader_address: string;
    readonly up_to_message_id: string;
    readonly up_to_sequence: number;
    readonly read_at: string;
  };
  typing: {
    readonly conversation_id: string;
    readonly from_address: string;
    readonly group_id: string;
    readonly state: 'typing' | 'paused';
  };
  'channel.post': { readonly post: Message };
}

const MESSAGE_EVENTS = new Set([
  'message.new',
  'message.edited',
  'message.deleted',
  'channel.post',
]);

/** The typed payload of `envelope` (its `message` or `post` parsed into a `Message`). */
export function typedData(envelope: EventEnvelope): Record<string, unknown> {
  if (!MESSAGE_EVENTS.has(envelope.type)) return envelope.data;
  const field = envelope.type === 'channel.post' ? 'post' : 'message';
  return { ...envelope.data, [field]: parseMessage(envelope.data[field] as JsonValue) };
}

/** A `Message` as REST and `/ws` print it, parsed into the generated type. */
export const parseMessage = (json: JsonValue): Message =>
  fromJson(MessageSchema, json, { ignoreUnknownFields: true });
