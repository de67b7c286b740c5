/**
 * Sign-In with Ethereum (EIP-4361) at Initialize, beside the spec's three templates. The message
 * is read by viem's `parseSiweMessage` and must be exactly what viem's `createSiweMessage`
 * writes for the fields read (byte for byte): viem's parser alone is a lenient search, the
 * round trip makes it strict (the ABNF's line order, EIP-55 address, no stray lines or
 * whitespace, RFC 3339 times as `toISOString()` prints them), without a parser of ours.
 *
 * Then the rules (auth.proto, InitializeRequest.message): the domain is one of SIWE_DOMAINS
 * (the anti-phishing binding: a message a wallet signed for another site is refused), the URI
 * is on it, version 1, the chain configured, the nonce at least 8 alphanumerics, issued-at
 * within the spec's 5 minutes, expiration-time and not-before honoured.
 */
import { createSiweMessage, parseSiweMessage } from 'viem/siwe';
import type { SiweMessage } from 'viem/siwe';

/** `<domain> wants you to sign in…`: a message of this shape is judged as SIWE, not as a template. */
const SIWE_PREAMBLE = / wants you to sign in with your Ethereum account:\n/;

export interface SiweRules {
  /** SIWE_DOMAINS. */
  readonly domains: readonly string[];
  /** ETH_DEFAULT_CHAIN_ID and the chains of ETH_RPC_URLS. */
  readonly chainIds: ReadonlySet<number>;
}

export interface ParsedSiwe {
  readonly domain: string;
  /** EIP-55, as written. */
  readonly address: string;
  readonly chainId: number;
  readonly nonce: string;
  readonly issuedAtMs: number;
  readonly expirationMs?: number;
  readonly notBeforeMs?: number;
}

export type SiweRefusal =
  /** Not an EIP-4361 message in viem's canonical form, or a field out of the ABNF. */
  'MALFORMED' | 'SIWE_DOMAIN_MISMATCH' | 'SIWE_CHAIN_MISMATCH';

export type SiweRead =
  | { readonly ok: true; readonly siwe: ParsedSiwe }
  | { readonly ok: false; readonly refusal: SiweRefusal; readonly detail: string };

export function looksLikeSiwe(message: string): boolean {
  return SIWE_PREAMBLE.test(message);
}

function refuse(refusal: SiweRefusal, detail: string): SiweRead {
  return { ok: false, refusal, detail };
}

/** Parses strictly (the round trip), then checks domain, URI and chain: what needs no clock. */
export function readSiweMessage(message: string, rules: SiweRules): SiweRead {
  const fields = canonicalFields(message);
  if (!fields)
    return refuse('MALFORMED', 'the message is not an EIP-4361 message in canonical form');
  const { domain, uri, chainId, nonce, issuedAt, expirationTime, notBefore } = fields;
  // Host names are case-insensitive (RFC 3986): `App.Example.com` is the configured domain.
  const configured = rules.domains.some((each) => each.toLowerCase() === domain.toLowerCase());
  if (!configured) {
    return refuse('SIWE_DOMAIN_MISMATCH', `the domain ${domain} is not served here`);
  }
  if (!isOnDomain(uri, domain))
    return refuse('SIWE_DOMAIN_MISMATCH', 'the URI is not on the domain');
  if (!rules.chainIds.has(chainId)) {
    return refuse('SIWE_CHAIN_MISMATCH', `chain ${chainId} is not accepted here`);
  }
  return {
    ok: true,
    siwe: {
      domain,
      address: fields.address,
      chainId,
      nonce,
      issuedAtMs: issuedAt.getTime(),
      ...(expirationTime ? { expirationMs: expirationTime.getTime() } : {}),
      ...(notBefore ? { notBeforeMs: notBefore.getTime() } : {}),
    },
  };
}

/** Why the message is not valid at `nowMs` (issued-at, expiration-time, not-before), or undefined. */
export function siweTimeProblem(
  siwe: ParsedSiwe,
  nowMs: number,
  toleranceMs: number,
): string | undefined {
  if (Math.abs(nowMs - siwe.issuedAtMs) > toleranceMs) {
    return `Issued At is more than ${toleranceMs} ms from server time`;
  }
  if (siwe.expirationMs !== undefined && siwe.expirationMs <= nowMs) {
    return 'the message has expired (Expiration Time)';
  }
  if (siwe.notBeforeMs !== undefined && siwe.notBeforeMs > nowMs) {
    return 'the message is not valid yet (Not Before)';
  }
  return undefined;
}

type CompleteSiwe = SiweMessage & { issuedAt: Date };

/** The fields when `message` is exactly what createSiweMessage writes for them, else undefined. */
function canonicalFields(message: string): CompleteSiwe | undefined {
  const fields = parseSiweMessage(message) as Partial<SiweMessage>;
  const { address, chainId, domain, nonce, uri, version, issuedAt } = fields;
  if (!address || chainId === undefined || !domain || !nonce || !uri || !version || !issuedAt) {
    return undefined;
  }
  const dates = [issuedAt, fields.expirationTime, fields.notBefore];
  if (dates.some((date) => date !== undefined && Number.isNaN(date.getTime()))) return undefined;
  let rewritten: string;
  try {
    // Throws on a field out of the ABNF (domain, nonce, URI, version, chain id, statement).
    rewritten = createSiweMessage({
      ...fields,
      address,
      chainId,
      domain,
      nonce,
      uri,
      version,
      issuedAt,
    });
  } catch {
    return undefined;
  }
  return rewritten === message
    ? { ...fields, address, chainId, domain, nonce, uri, version, issuedAt }
    : undefined;
}

/** The URI's authority is the domain, or its host is the domain's host (another port of it). */
function isOnDomain(uri: string, domain: string): boolean {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  const domainHost = domain.replace(/:[0-9]+$/, '').toLowerCase();
  return (
    url.host.toLowerCase() === domain.toLowerCase() || url.hostname.toLowerCase() === domainHost
  );
}
