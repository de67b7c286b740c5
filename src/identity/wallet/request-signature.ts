/**
 * The signed request of a signature-gated RPC (`(access).signature_required`, options.proto):
 * the `X-Signature` header format and the message it signs. The request is named by its RPC
 * and its body by the SHA-256 of the request message's protobuf encoding, so one signature
 * holds whichever way the call arrives: REST (directly, or transcoded to gRPC by Envoy), gRPC
 * or Connect. Freshness and replay are the caller's (auth/request-signatures.ts).
 */
import { createHash } from 'node:crypto';
import type { SignerRecovery } from './signer-recovery.js';

/** `<timestamp_ms>.<signature hex>`; the timestamp in digits, the signature 65 bytes (0x optional). */
const HEADER = /^(\d{1,15})\.((?:0x)?[0-9a-fA-F]{130})$/;

export interface SignedRequest {
  readonly serviceName: string;
  /** The caller's address, lowercase. */
  readonly wallet: string;
  /** The RPC: `/<package>.<Service>/<Method>`, its gRPC path. */
  readonly rpc: string;
  /** The request message's protobuf encoding. */
  readonly body: Uint8Array;
  readonly timestampMs: number;
}

export function parseSignatureHeader(
  value: string,
): { timestampMs: number; signature: string } | undefined {
  const match = HEADER.exec(value.trim());
  return match ? { timestampMs: Number(match[1]), signature: match[2]! } : undefined;
}

export function signedRequestMessage(request: SignedRequest): string {
  return [
    `${request.serviceName} Signed Request`,
    `Wallet: ${request.wallet}`,
    `RPC: ${request.rpc}`,
    `Body-SHA256: ${createHash('sha256').update(request.body).digest('hex')}`,
    `Timestamp: ${request.timestampMs}`,
  ].join('\n');
}

/** The canonical signature (the replay key) when `signature` is the wallet's low-S signature of the request. */
export async function verifySignedRequest(
  request: SignedRequest,
  signature: string,
  signers: Pick<SignerRecovery, 'recover'>,
): Promise<{ ok: true; replayKey: string } | { ok: false }> {
  const recovered = await signers.recover(signedRequestMessage(request), signature);
  return recovered.ok && recovered.address === request.wallet
    ? { ok: true, replayKey: recovered.canonical }
    : { ok: false };
}
