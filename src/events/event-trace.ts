/**
 * The trace context an event carries through Redis to the ws pods: the W3C `traceparent` of the
 * publish, as the last member of the event's envelope (`…,"traceparent":"00-…-…-01"}`), added
 * only when the publishing request is traced. It is fixed-length (55 characters), so a ws pod
 * finds and removes it with one comparison at a known offset, without parsing the JSON, before
 * any client sees the frame: clients never receive it, live or replayed.
 */
const MEMBER = ',"traceparent":"';
/** `,"traceparent":"` + 55 characters + `"}`. */
const SUFFIX_LENGTH = MEMBER.length + 55 + 2;

/** The event with `traceparent` appended, or as it is without one. */
export function withTraceparent(event: string, traceparent: string | undefined): string {
  return traceparent === undefined ? event : `${event.slice(0, -1)}${MEMBER}${traceparent}"}`;
}

/** The frame without its trace context, and that context (undefined when it had none). */
export function splitTraceparent(frame: string): {
  frame: string;
  traceparent: string | undefined;
} {
  const start = frame.length - SUFFIX_LENGTH;
  // Inside a JSON string a quote is escaped, so the member can only be the envelope's own.
  if (start <= 0 || !frame.startsWith(MEMBER, start) || !frame.endsWith('"}'))
    return { frame, traceparent: undefined };
  return {
    frame: `${frame.slice(0, start)}}`,
    traceparent: frame.slice(start + MEMBER.length, -2),
  };
}

/** A frame as a client may see it (replayed frames come from the log with their context). */
export function withoutTraceparent(frame: string): string {
  return splitTraceparent(frame).frame;
}
