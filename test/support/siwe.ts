/**
 * Sign-In with Ethereum messages (EIP-4361) as a wallet or dapp makes them: built by viem's
 * `createSiweMessage`, independent of the service's parser. Defaults to the service's default
 * SIWE_DOMAINS and chain; a test overrides what it is about.
 */
import type { Hex } from 'viem';
import { createSiweMessage, generateSiweNonce } from 'viem/siwe';

export type SiweFields = Partial<Parameters<typeof createSiweMessage>[0]>;

export function siweMessage(address: string, overrides: SiweFields = {}): string {
  return createSiweMessage({
    address: address as Hex,
    domain: 'localhost:8080',
    uri: 'http://localhost:8080/',
    version: '1',
    chainId: 1,
    nonce: generateSiweNonce(),
    issuedAt: new Date(),
    ...overrides,
  });
}
