/**
 * The form in which a DPoP proof's `htu` and the request's URI are compared (RFC 9449 §4.3):
 * query and fragment dropped, then RFC 3986's syntax-based (§6.2.2) and scheme-based (§6.2.3)
 * normalisation, so that equivalent spellings of one URI are not refused.
 */

const PERCENT_ENCODED = /%[0-9A-Fa-f]{2}/g;
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/** The comparable form of an absolute http(s) URI, or undefined for anything else. */
export function comparableHttpUri(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  // The WHATWG parser already lowercases scheme and host, drops the scheme's default port,
  // turns an empty path into "/" and removes dot segments.
  url.search = '';
  url.hash = '';
  return url.href.replace(PERCENT_ENCODED, (encoded) => {
    const character = String.fromCharCode(Number.parseInt(encoded.slice(1), 16));
    return UNRESERVED.test(character) ? character : encoded.toUpperCase();
  });
}
