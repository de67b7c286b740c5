/**
 * Sign-in messages written out by hand from the spec's templates, so the tests do not share
 * the implementation's idea of what a template is.
 */
export const SERVICE = 'Service';
/** 2026-01-01T00:00:00Z, a fixed "server time" for the tests. */
export const NOW_MS = 1_767_225_600_000;

export interface TemplateFields {
  service?: string;
  wallet: string;
  username?: string;
  name?: string;
  timestamp?: string | number;
}

export type VariantName =
  | 'sign-in'
  | 'registration compact'
  | 'registration spaced'
  | 'registration-short compact'
  | 'registration-short spaced';

export interface Variant {
  name: VariantName;
  kind: 'sign-in' | 'registration' | 'registration-short';
  lines: (fields: TemplateFields) => string[];
}

const defaults = (fields: TemplateFields) => ({
  service: fields.service ?? SERVICE,
  username: fields.username ?? 'alice',
  name: fields.name ?? 'Alice',
  timestamp: String(fields.timestamp ?? NOW_MS),
});

export const VARIANTS: Variant[] = [
  {
    name: 'sign-in',
    kind: 'sign-in',
    lines: (f) => {
      const d = defaults(f);
      return [
        `${d.service} Sign In`,
        '',
        `I confirm that I own this wallet and want to sign in to ${d.service}.`,
        '',
        `Wallet: ${f.wallet}`,
        `Timestamp: ${d.timestamp}`,
      ];
    },
  },
  {
    name: 'registration compact',
    kind: 'registration',
    lines: (f) => {
      const d = defaults(f);
      return [
        `${d.service} Registration`,
        `I confirm that I own this wallet and want to register with ${d.service}.`,
        `Wallet: ${f.wallet}`,
        `Username: ${d.username}`,
        `Name: ${d.name}`,
        `Timestamp: ${d.timestamp}`,
      ];
    },
  },
  {
    name: 'registration spaced',
    kind: 'registration',
    lines: (f) => {
      const d = defaults(f);
      return [
        `${d.service} Registration`,
        '',
        `I confirm that I own this wallet and want to register with ${d.service}.`,
        '',
        `Wallet: ${f.wallet}`,
        `Username: ${d.username}`,
        `Name: ${d.name}`,
        `Timestamp: ${d.timestamp}`,
      ];
    },
  },
  {
    name: 'registration-short compact',
    kind: 'registration-short',
    lines: (f) => {
      const d = defaults(f);
      return [
        `${d.service} Registration`,
        `Wallet: ${f.wallet}`,
        `Username: ${d.username}`,
        `Timestamp: ${d.timestamp}`,
      ];
    },
  },
  {
    name: 'registration-short spaced',
    kind: 'registration-short',
    lines: (f) => {
      const d = defaults(f);
      return [
        `${d.service} Registration`,
        '',
        `Wallet: ${f.wallet}`,
        `Username: ${d.username}`,
        `Timestamp: ${d.timestamp}`,
      ];
    },
  },
];

export const variant = (name: VariantName): Variant =>
  VARIANTS.find((v) => v.name === name) as Variant;

export const message = (name: VariantName, fields: TemplateFields): string =>
  variant(name).lines(fields).join('\n');

/** secp256k1 group order, for building high-S twins and out-of-range scalars. */
export const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

const hex64 = (value: bigint) => value.toString(16).padStart(64, '0');

/** A 65-byte signature spelled as 0x + r + s + v. */
export const signatureHex = (r: bigint, s: bigint, v: number): string =>
  `0x${hex64(r)}${hex64(s)}${v.toString(16).padStart(2, '0')}`;

/** The malleable twin of a signature: s' = n - s with the recovery bit flipped. */
export function highSTwin(signature: string): string {
  const hex = signature.slice(2);
  const r = BigInt(`0x${hex.slice(0, 64)}`);
  const s = BigInt(`0x${hex.slice(64, 128)}`);
  const v = Number.parseInt(hex.slice(128), 16);
  return signatureHex(r, CURVE_ORDER - s, v === 27 ? 28 : 27);
}
