/**
 * The two conditional request headers of a download whose validator is an entity tag
 * (RFC 9110, section 13): `If-None-Match` (a client's cached copy is still the current one:
 * 304 instead of the bytes) and `If-Range` (a resumed download continues only from the same
 * bytes). Pure: the callers (the REST gateway, the media service) hold the current ETag and
 * decide what to answer. `If-Modified-Since` is not evaluated: no route sends `Last-Modified`,
 * and `If-None-Match` would take precedence over it anyway (section 13.1.3).
 */

/** An entity tag as it appears in a header: its opaque part (quotes included) and weakness. */
interface EntityTag {
  readonly weak: boolean;
  readonly opaque: string;
}

/**
 * `entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE`, `etagc = %x21 / %x23-7E / obs-text`. A comma is
 * an etagc, so a list is read tag by tag, never split on commas.
 */
const ENTITY_TAG = /^(W\/)?("[\x21\x23-\x7e\x80-\xff]*")/;

/**
 * The entity tags of a list header (`#entity-tag`, empty elements and whitespace allowed), or
 * undefined when any element is not an entity tag: an unquoted hash is not a tag, and a
 * malformed header is ignored as a whole rather than half-understood.
 */
function entityTags(header: string): EntityTag[] | undefined {
  const tags: EntityTag[] = [];
  let rest = header;
  for (;;) {
    rest = rest.replace(/^[\t ,]+/, '');
    if (rest === '') return tags;
    const match = ENTITY_TAG.exec(rest);
    if (!match) return undefined;
    tags.push({ weak: match[1] !== undefined, opaque: match[2]! });
    rest = rest.slice(match[0].length).replace(/^[\t ]+/, '');
    if (rest !== '' && !rest.startsWith(',')) return undefined;
  }
}

function singleEntityTag(value: string): EntityTag | undefined {
  const tags = entityTags(value);
  return tags?.length === 1 ? tags[0] : undefined;
}

/**
 * Whether `If-None-Match` matches the representation whose (strong or weak) ETag is
 * `currentEtag` (section 13.1.2): `*`, or any listed tag equal to it by weak comparison (the
 * opaque parts equal, `W/` ignored on either side). An absent, empty, unquoted or otherwise
 * malformed header matches nothing, so such a request is answered in full as before.
 */
export function ifNoneMatchMatches(header: string | null | undefined, currentEtag: string) {
  if (header === null || header === undefined) return false;
  if (header.trim() === '*') return true;
  const current = singleEntityTag(currentEtag);
  if (!current) return false;
  return entityTags(header)?.some((tag) => tag.opaque === current.opaque) ?? false;
}

/**
 * Whether a `Range` may be served given `If-Range` (section 13.1.5): yes without `If-Range`;
 * with it, only when it is a strong entity tag strongly equal to the current one, itself strong.
 * A weak tag, another tag, an HTTP-date (no route has a `Last-Modified` to compare it to
 * strongly) or anything malformed means the client's partial copy may not be ours: the whole
 * representation is sent instead (200).
 */
export function ifRangeAllowsRange(header: string | null | undefined, currentEtag: string) {
  if (header === null || header === undefined) return true;
  const asked = singleEntityTag(header.trim());
  const current = singleEntityTag(currentEtag);
  if (!asked || !current || asked.weak || current.weak) return false;
  return asked.opaque === current.opaque;
}
