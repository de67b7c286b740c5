/**
 * A document as the engine holds it. Stored documents are never mutated: an update builds a
 * new object and swaps it in, so a reference taken for a snapshot stays a consistent version.
 */
export type StoredDocument = { readonly _id: string } & Record<string, unknown>;
