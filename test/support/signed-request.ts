/**
 * The `X-Signature` of a signature-gated request (options.proto, `signature_required`), built
 * here from the contract with node's SHA-256, the gRPC client's protobuf encoder and ethers'
 * EIP-191 signing, independently of the service's code.
 */
import { createHash } from 'node:crypto';
import { requestEncoder } from './grpc-client.js';
import type { Api, Reply } from './session-api.js';
import type { SignedIn, TestUser } from './wallet.js';
import { SERVICE_NAME, bearer } from './wallet.js';

export interface RequestToSign {
  /** `/<package>.<Service>/<Method>`. */
  rpc: string;
  /** The request message's protobuf encoding. */
  body: Uint8Array;
  timestampMs?: number;
}

export function signedRequestText(
  wallet: string,
  request: RequestToSign,
  timestampMs: number,
): string {
  const digest = createHash('sha256').update(request.body).digest('hex');
  return [
    `${SERVICE_NAME} Signed Request`,
    `Wallet: ${wallet.toLowerCase()}`,
    `RPC: ${request.rpc}`,
    `Body-SHA256: ${digest}`,
    `Timestamp: ${timestampMs}`,
  ].join('\n');
}

/** The header value: `<timestamp_ms>.<signature>`. */
export async function xSignature(
  signer: TestUser,
  request: RequestToSign,
  wallet = signer.address,
): Promise<string> {
  const timestampMs = request.timestampMs ?? Date.now();
  return `${timestampMs}.${await signer.sign(signedRequestText(wallet, request, timestampMs))}`;
}

export const DELETE_ACCOUNT_RPC = '/service.v1.ProfileService/DeleteAccount';
export const SETUP_RECOVERY_RPC = '/service.v1.RecoveryService/SetupRecovery';

/**
 * The contract's encoding leaves proto3 defaults out; protobufjs writes a member that is present
 * even when it holds its default, so the members holding one are dropped first.
 */
function withoutDefaults(body: Record<string, unknown>): Record<string, unknown> {
  const isDefault = (value: unknown) =>
    value === 0 || value === '' || value === false || (Array.isArray(value) && value.length === 0);
  return Object.fromEntries(Object.entries(body).filter(([, value]) => !isDefault(value)));
}

const encoderOf = (protoFile: string, service: string, method: string) => {
  const encode = requestEncoder(protoFile, service, method);
  return (body: Record<string, unknown>) => encode(withoutDefaults(body));
};

/** The protobuf encodings of the signature-gated requests (the REST body's members, snake_case). */
export const encodeDeleteAccount = encoderOf(
  'service/v1/profile.proto',
  'service.v1.ProfileService',
  'DeleteAccount',
);
export const encodeSetupRecovery = encoderOf(
  'service/v1/recovery.proto',
  'service.v1.RecoveryService',
  'SetupRecovery',
);

/** POST /api/v1/delete-account with the caller's X-Signature of `body` (by default: confirming its own address). */
export async function deleteAccountSigned(
  api: Api,
  session: SignedIn,
  body: Record<string, unknown> = { confirm: session.user.address },
): Promise<Reply> {
  const signature = await xSignature(session.user, {
    rpc: DELETE_ACCOUNT_RPC,
    body: encodeDeleteAccount(body),
  });
  return api.post('/api/v1/delete-account', body, { ...bearer(session), 'x-signature': signature });
}
