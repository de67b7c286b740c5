/**
 * The `X-Signature` of a signature-gated request (options.proto, `signature_required`), built
 * here from the contract with node's SHA-256 and ethers' EIP-191 signing, independently of the
 * service's code.
 */
import { createHash } from 'node:crypto';
import type { TestUser } from './wallet.js';
import { SERVICE_NAME } from './wallet.js';

export interface RequestToSign {
  method: string;
  path: string;
  /** The exact body bytes sent (JSON text over REST, the protobuf encoding over gRPC). */
  body: string | Uint8Array;
  timestampMs?: number;
}

export function signedRequestText(wallet: string, request: RequestToSign, timestampMs: number): string {
  const digest = createHash('sha256').update(request.body).digest('hex');
  return [`${SERVICE_NAME} Signed Request`, `Wallet: ${wallet.toLowerCase()}`, `Method: ${request.method}`, `Path: ${request.path}`, `Body-SHA256: ${digest}`, `Timestamp: ${timestampMs}`].join('\n');
}

/** The header value: `<timestamp_ms>.<signature>`. */
export async function xSignature(signer: TestUser, request: RequestToSign, wallet = signer.address): Promise<string> {
  const timestampMs = request.timestampMs ?? Date.now();
  return `${timestampMs}.${await signer.sign(signedRequestText(wallet, request, timestampMs))}`;
}
