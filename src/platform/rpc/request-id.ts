import { randomUUID } from 'node:crypto';

/** A client-supplied request id is kept only when it is short and plain, so logs stay safe. */
const ACCEPTABLE = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdFrom(header: string | null | undefined): string {
  return header && ACCEPTABLE.test(header) ? header : randomUUID();
}
