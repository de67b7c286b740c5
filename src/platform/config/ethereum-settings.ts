/**
 * The two list settings of wallet verification: ETH_RPC_URLS (a JSON-RPC endpoint per chain
 * id, for contract wallets) and SIWE_DOMAINS (the domains a Sign-In with Ethereum message may
 * name). Both are checked at start, so a typo stops the process instead of refusing sign-ins.
 */
import { ConfigError } from './setting.js';
import type { Setting } from './setting.js';

/** EIP-155 chain ids are positive integers; above 2^53 - 1 they would not survive JSON. */
const CHAIN_ID = /^[1-9][0-9]{0,15}$/;
/** An RFC 3986 authority as EIP-4361 `domain` uses it: a host name or IPv4, optional port. */
const AUTHORITY = /^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?(?::[0-9]{1,5})?$/;

export function chainRpcListSetting(
  env: string,
  description: string,
): Setting<ReadonlyMap<number, string>> {
  return {
    env,
    description,
    defaultText: undefined,
    parse(raw) {
      const urls = new Map<number, string>();
      if (raw === undefined || raw.trim() === '') return urls;
      for (const entry of raw.split(',')) {
        const [id = '', url = ''] = splitOnce(entry.trim(), '=');
        if (!CHAIN_ID.test(id) || !Number.isSafeInteger(Number(id))) {
          throw new ConfigError(env, `must list <chain id>=<url>; "${id}" is not a chain id`);
        }
        if (!isHttpUrl(url))
          throw new ConfigError(env, `chain ${id}: "${url}" is not an http(s) URL`);
        if (urls.has(Number(id))) throw new ConfigError(env, `names chain ${id} twice`);
        urls.set(Number(id), url);
      }
      return urls;
    },
  };
}

export function domainListSetting(
  env: string,
  description: string,
  fallback: string,
): Setting<readonly string[]> {
  return {
    env,
    description,
    defaultText: fallback,
    parse(raw) {
      const text = raw === undefined || raw.trim() === '' ? fallback : raw;
      const domains = text.split(',').map((item) => item.trim());
      for (const domain of domains) {
        if (!AUTHORITY.test(domain)) {
          throw new ConfigError(env, `must list host or host:port entries, got "${domain}"`);
        }
      }
      return domains;
    },
  };
}

function splitOnce(text: string, separator: string): [string, string] {
  const at = text.indexOf(separator);
  return at === -1 ? [text, ''] : [text.slice(0, at), text.slice(at + 1)];
}

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}
