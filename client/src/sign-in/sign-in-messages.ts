/**
 * The messages a wallet signs to sign in (auth.proto, Initialize): the service's templates,
 * byte for byte, and Sign-In with Ethereum (EIP-4361) as viem writes it, which is the exact form
 * the service accepts.
 */
import { createSiweMessage } from 'viem/siwe';

/** Template 1: a returning user. `serviceName` is the service's `SERVICE_NAME`. */
export const signInTemplate = (serviceName: string, wallet: string, timestampMs: number): string =>
  [
    `${serviceName} Sign In`,
    '',
    `I confirm that I own this wallet and want to sign in to ${serviceName}.`,
    '',
    `Wallet: ${wallet}`,
    `Timestamp: ${timestampMs}`,
  ].join('\n');

/** Template 2 (compact layout): a registration with a username and a display name. */
export const registrationTemplate = (
  serviceName: string,
  wallet: string,
  username: string,
  displayName: string,
  timestampMs: number,
): string =>
  [
    `${serviceName} Registration`,
    `I confirm that I own this wallet and want to register with ${serviceName}.`,
    `Wallet: ${wallet}`,
    `Username: ${username}`,
    `Name: ${displayName}`,
    `Timestamp: ${timestampMs}`,
  ].join('\n');

export interface SiweOptions {
  /** The web app's host (`host` or `host:port`), one of the service's `SIWE_DOMAINS`. */
  readonly domain: string;
  /** The page asking for the sign-in, on `domain`. */
  readonly uri: string;
  /** The chain id (the service's `ETH_DEFAULT_CHAIN_ID` or one of `ETH_RPC_URLS`); default 1. */
  readonly chainId?: number;
  readonly statement?: string;
}

const NONCE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** An EIP-4361 message valid 5 minutes, with a fresh 16-character nonce. */
export function siweMessage(options: SiweOptions, wallet: string, now: Date): string {
  const random = crypto.getRandomValues(new Uint8Array(16));
  const nonce = Array.from(random, (byte) => NONCE_ALPHABET[byte % NONCE_ALPHABET.length]).join('');
  return createSiweMessage({
    domain: options.domain,
    address: wallet as `0x${string}`,
    uri: options.uri,
    version: '1',
    chainId: options.chainId ?? 1,
    nonce,
    issuedAt: now,
    expirationTime: new Date(now.getTime() + 5 * 60_000),
    ...(options.statement === undefined ? {} : { statement: options.statement }),
  });
}
