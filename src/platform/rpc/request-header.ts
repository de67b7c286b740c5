import type { HandlerContext } from '@connectrpc/connect';

/** A context that can read one request header without building a Headers object. */
interface RawHeaderContext {
  rawHeader(name: string): string | null;
}

/**
 * One request header of a call. On REST calls it is read from the raw header map: building
 * `context.requestHeader` costs more than a small RPC, and most calls read only a header or two.
 */
export function requestHeaderOf(context: HandlerContext, name: string): string | null {
  const raw = context as Partial<RawHeaderContext>;
  return raw.rawHeader ? raw.rawHeader(name) : context.requestHeader.get(name);
}
