/**
 * The RFC 9110 cases of `If-None-Match` (section 13.1.2, weak comparison) and `If-Range`
 * (section 13.1.5, strong comparison), on the pure evaluation every download route uses.
 */
import { ifNoneMatchMatches, ifRangeAllowsRange } from '../../src/server/http-preconditions.js';

const CURRENT = '"abc123"';

describe('If-None-Match', () => {
  it.each([
    ['the current tag', '"abc123"'],
    ['*', '*'],
    ['* with whitespace', '  * '],
    ['a list containing it', '"other", "abc123"'],
    ['a list without spaces', '"other","abc123","x"'],
    ['a list with empty elements', ' , "abc123",,'],
    ['its weak form (weak comparison)', 'W/"abc123"'],
    ['a list with its weak form', '"other", W/"abc123"'],
  ])('matches %s', (_, header) => {
    expect(ifNoneMatchMatches(header, CURRENT)).toBe(true);
  });

  it.each([
    ['no header', null],
    ['an empty header', ''],
    ['the unquoted hash', 'abc123'],
    ['another tag', '"abc124"'],
    ['another weak tag', 'W/"abc"'],
    ['a prefix of it', '"abc12"'],
    ['a list of other tags', '"a", "b"'],
    ['a list with a malformed element (ignored whole)', '"abc123", nope'],
    ['a tag missing its closing quote', '"abc123'],
    ['a lower-case weak prefix', 'w/"abc123"'],
    ['* inside a list', '"a", *'],
    ['two tags without a comma', '"abc123" "x"'],
  ])('does not match %s', (_, header) => {
    expect(ifNoneMatchMatches(header, CURRENT)).toBe(false);
  });

  it('compares a weak current tag weakly too', () => {
    expect(ifNoneMatchMatches('"abc123"', 'W/"abc123"')).toBe(true);
  });

  it('reads a comma inside a tag as part of it, not as a separator', () => {
    expect(ifNoneMatchMatches('"a,b"', '"a,b"')).toBe(true);
    expect(ifNoneMatchMatches('"a,b"', '"a"')).toBe(false);
  });
});

describe('If-Range', () => {
  it('allows the range without If-Range', () => {
    expect(ifRangeAllowsRange(null, CURRENT)).toBe(true);
    expect(ifRangeAllowsRange(undefined, CURRENT)).toBe(true);
  });

  it('allows the range for the current strong tag', () => {
    expect(ifRangeAllowsRange('"abc123"', CURRENT)).toBe(true);
    expect(ifRangeAllowsRange(' "abc123" ', CURRENT)).toBe(true);
  });

  it.each([
    ['another tag', '"abc124"'],
    ['its weak form (strong comparison only)', 'W/"abc123"'],
    ['the unquoted hash', 'abc123'],
    ['an HTTP-date', 'Wed, 21 Oct 2015 07:28:00 GMT'],
    ['a list', '"abc123", "x"'],
    ['*', '*'],
    ['an empty value', ''],
  ])('refuses the range for %s (the whole representation is sent)', (_, header) => {
    expect(ifRangeAllowsRange(header, CURRENT)).toBe(false);
  });

  it('refuses the range when the current tag is weak', () => {
    expect(ifRangeAllowsRange('W/"abc123"', 'W/"abc123"')).toBe(false);
    expect(ifRangeAllowsRange('"abc123"', 'W/"abc123"')).toBe(false);
  });
});
