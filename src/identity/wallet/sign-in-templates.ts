import { isWalletAddress } from '../../accounts/wallet-address.js';

export type SignInTemplateKind = 'sign-in' | 'registration' | 'registration-short';

export interface ParsedSignInMessage {
  kind: SignInTemplateKind;
  /** As written in the message; compare case-insensitively. */
  wallet: string;
  /** Registration templates only: the text after `Username: `, exactly as written. */
  username?: string;
  /** Template 2 only: the text after `Name: ` as written; may be empty. */
  displayName?: string;
  timestampMs: number;
}

export type SignInMessageParse =
  { ok: true; parsed: ParsedSignInMessage } | { ok: false; detail: string };

type Field = 'wallet' | 'username' | 'displayName' | 'timestamp';

interface FieldRule {
  label: string;
  /** The value as a piece of the result, or why it breaks the template. */
  read: (value: string) => Partial<ParsedSignInMessage> | string;
}

const TIMESTAMP_DIGITS = /^[0-9]{1,19}$/;

const FIELDS: Record<Field, FieldRule> = {
  wallet: {
    label: 'Wallet',
    read: (value) =>
      isWalletAddress(value) ? { wallet: value } : 'Wallet must be 0x plus 40 hex digits',
  },
  username: {
    label: 'Username',
    // Not trimmed or normalized: the caller compares exactly what was signed with the request
    // username and applies the username rules to it.
    read: (value) => (value === '' ? 'Username must not be empty' : { username: value }),
  },
  displayName: {
    label: 'Name',
    // Empty is accepted: the display name is optional (the account's display name is then
    // empty), and a client with an empty name field still builds this template.
    read: (value) => ({ displayName: value }),
  },
  timestamp: {
    label: 'Timestamp',
    read: (value) => {
      // Above 2^53 - 1 the digits no longer survive the conversion to a number, so the freshness
      // check would judge a different instant than the one signed.
      const timestampMs = TIMESTAMP_DIGITS.test(value) ? Number(value) : 0;
      return Number.isSafeInteger(timestampMs) && timestampMs > 0
        ? { timestampMs }
        : 'Timestamp must be milliseconds since the epoch: 1 to 19 digits, greater than zero, at most 2^53 - 1';
    },
  },
};

type Layout = 'compact' | 'spaced';

interface Template {
  kind: SignInTemplateKind;
  /** Title and optional statement; in the spaced layout each is followed by one blank line. */
  head: (serviceName: string) => string[];
  fields: Field[];
  layouts: Layout[];
}

const TEMPLATES: Template[] = [
  {
    kind: 'sign-in',
    head: (name) => [
      `${name} Sign In`,
      `I confirm that I own this wallet and want to sign in to ${name}.`,
    ],
    fields: ['wallet', 'timestamp'],
    layouts: ['spaced'],
  },
  {
    kind: 'registration',
    head: (name) => [
      `${name} Registration`,
      `I confirm that I own this wallet and want to register with ${name}.`,
    ],
    fields: ['wallet', 'username', 'displayName', 'timestamp'],
    layouts: ['compact', 'spaced'],
  },
  {
    kind: 'registration-short',
    head: (name) => [`${name} Registration`],
    fields: ['wallet', 'username', 'timestamp'],
    layouts: ['compact', 'spaced'],
  },
];

type ExpectedLine = { text: string } | { field: Field };

function expectedLines(template: Template, layout: Layout, serviceName: string): ExpectedLine[] {
  const head = template
    .head(serviceName)
    .flatMap((text) => (layout === 'spaced' ? [text, ''] : [text]));
  return [...head.map((text) => ({ text })), ...template.fields.map((field) => ({ field }))];
}

const prefix = (field: Field): string => `${FIELDS[field].label}: `;

/** Whether every fixed line is equal and every field line starts with its label. */
function hasShape(lines: string[], expected: ExpectedLine[]): boolean {
  return (
    lines.length === expected.length &&
    expected.every((line, i) => {
      const actual = lines[i] as string;
      return 'text' in line ? actual === line.text : actual.startsWith(prefix(line.field));
    })
  );
}

function readFields(
  kind: SignInTemplateKind,
  lines: string[],
  expected: ExpectedLine[],
): SignInMessageParse {
  let parsed: Partial<ParsedSignInMessage> = { kind };
  for (const [i, line] of expected.entries()) {
    if (!('field' in line)) continue;
    const piece = FIELDS[line.field].read((lines[i] as string).slice(prefix(line.field).length));
    if (typeof piece === 'string') return { ok: false, detail: piece };
    parsed = { ...parsed, ...piece };
  }
  // Complete: every template has a Wallet and a Timestamp line.
  return { ok: true, parsed: parsed as ParsedSignInMessage };
}

/**
 * Matches `message` against the three wallet sign-in templates byte for byte (spec, "Wallet
 * login"): LF line endings only, no surrounding whitespace, no trailing newline; template 1 in
 * its one layout, templates 2 and 3 compact or with the blank lines of template 1.
 *
 * Lines are compared as strings rather than through a regex built from `serviceName`, so the
 * service name needs no escaping and can never act as a pattern.
 */
export function parseSignInMessage(message: string, serviceName: string): SignInMessageParse {
  assertServiceName(serviceName);
  if (message.includes('\r'))
    return { ok: false, detail: 'the message must use LF line endings only' };
  const lines = message.split('\n');
  for (const template of TEMPLATES) {
    for (const layout of template.layouts) {
      const expected = expectedLines(template, layout, serviceName);
      if (hasShape(lines, expected)) return readFields(template.kind, lines, expected);
    }
  }
  return { ok: false, detail: 'the message does not match any sign-in template' };
}

/**
 * A service name that is empty, spans lines or has surrounding whitespace would make every
 * message unmatchable or force whitespace the spec forbids: a configuration error, not a
 * client's, so it throws instead of refusing every sign-in.
 */
function assertServiceName(serviceName: string): void {
  if (serviceName === '' || serviceName.trim() !== serviceName || /[\r\n]/.test(serviceName)) {
    throw new TypeError(
      'serviceName must be a non-empty single line without surrounding whitespace',
    );
  }
}
