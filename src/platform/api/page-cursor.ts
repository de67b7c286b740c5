/**
 * Opaque list cursors: the sort key and id of the last item of a page, so the next page starts
 * strictly after it even when items are added meanwhile. Clients must not build or read them.
 */
import { invalidArgument } from '../errors/api-error.js';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

export function pageSize(requested: number): number {
  if (requested < 0 || requested > MAX_PAGE_SIZE)
    throw invalidArgument(`page_size must be between 0 and ${MAX_PAGE_SIZE}`);
  return requested === 0 ? DEFAULT_PAGE_SIZE : requested;
}

export interface CursorPosition {
  readonly sortValue: number;
  readonly id: string;
}

export function encodeCursor(position: CursorPosition): string {
  return Buffer.from(JSON.stringify([position.sortValue, position.id])).toString('base64url');
}

/** Undefined for the first page; 400 for a cursor this service did not make. */
export function decodeCursor(cursor: string): CursorPosition | undefined {
  if (cursor === '') return undefined;
  try {
    const [sortValue, id] = JSON.parse(
      Buffer.from(cursor, 'base64url').toString('utf8'),
    ) as unknown[];
    if (typeof sortValue === 'number' && typeof id === 'string') return { sortValue, id };
  } catch {
    // fall through to the refusal
  }
  throw invalidArgument('cursor is not valid');
}
