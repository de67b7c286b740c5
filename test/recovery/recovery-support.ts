/**
 * Helpers of the recovery tests: the signed recovery messages of recovery.proto built from the
 * contract and signed with ethers (independent of the service's code), SetupRecovery with its
 * X-Signature, and the requests of the flow over real HTTP.
 */
import type { Api } from '../support/session-api.js';
import { SETUP_RECOVERY_RPC, encodeSetupRecovery, xSignature } from '../support/signed-request.js';
import { SERVICE_NAME, TestUser, bearer } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import type { Json } from '../support/json.js';

export const newWalletProof = (address: string, newWallet: string, timestampMs = Date.now()) =>
  [
    `${SERVICE_NAME} Account Recovery`,
    `Account: ${address}`,
    `New wallet: ${newWallet}`,
    `Timestamp: ${timestampMs}`,
  ].join('\n');

interface RequestNames {
  id: string;
  address: string;
  new_wallet_address: string;
}

export const approvalMessage = (request: RequestNames, timestampMs = Date.now()) =>
  [
    `${SERVICE_NAME} Recovery Approval`,
    `Request: ${request.id}`,
    `Account: ${request.address}`,
    `New wallet: ${request.new_wallet_address}`,
    `Timestamp: ${timestampMs}`,
  ].join('\n');

export const rejectionMessage = (request: RequestNames, reason: string) =>
  [
    `${SERVICE_NAME} Recovery Rejection`,
    `Request: ${request.id}`,
    `Account: ${request.address}`,
    `New wallet: ${request.new_wallet_address}`,
    `Reason: ${reason}`,
  ].join('\n');

/** POST /api/v1/recovery/setup with the owner's X-Signature of the request. */
export async function setupRecovery(
  api: Api,
  owner: SignedIn,
  body: Record<string, unknown>,
  options: { sign?: boolean } = {},
) {
  const text = JSON.stringify(body);
  const headers: Record<string, string> = { 'content-type': 'application/json', ...bearer(owner) };
  if (options.sign !== false)
    headers['x-signature'] = await xSignature(owner.user, {
      rpc: SETUP_RECOVERY_RPC,
      body: encodableOrEmpty(body),
    });
  const response = await fetch(api.url('/api/v1/recovery/setup'), {
    method: 'POST',
    headers,
    body: text,
  });
  return {
    status: response.status,
    body: (await response.json()) as Json,
    headers: response.headers,
  };
}

/** A body that is not even a SetupRecoveryRequest (bad-input tests) is refused before the signature is read. */
function encodableOrEmpty(body: Record<string, unknown>): Buffer {
  try {
    return encodeSetupRecovery(body);
  } catch {
    return encodeSetupRecovery({});
  }
}

/** InitiateRecovery from `newWallet` for the account of `owner`. */
export async function initiate(
  api: Api,
  owner: string,
  newWallet: TestUser,
  extra: Record<string, unknown> = {},
) {
  const message = newWalletProof(owner, newWallet.address);
  return api.post('/api/v1/recovery/initiate', {
    address: owner,
    new_wallet_address: newWallet.address,
    message,
    signature: await newWallet.sign(message),
    ...extra,
  });
}

export async function approve(api: Api, guardian: SignedIn, request: RequestNames) {
  const message = approvalMessage(request);
  return api.post(
    `/api/v1/recovery/guardian/approve/${request.id}`,
    { message, signature: await guardian.user.sign(message) },
    bearer(guardian),
  );
}

export async function reject(
  api: Api,
  guardian: SignedIn,
  request: RequestNames,
  reason = 'I did not hear from them',
) {
  return api.post(
    `/api/v1/recovery/guardian/reject/${request.id}`,
    { reason, signature: await guardian.user.sign(rejectionMessage(request, reason)) },
    bearer(guardian),
  );
}

/** RecoveryChallenge, social mode. */
export async function completeSocial(api: Api, request: RequestNames, newWallet: TestUser) {
  const message = newWalletProof(request.address, newWallet.address);
  return api.post('/api/v1/recovery/challenge', {
    request_id: request.id,
    message,
    signature: await newWallet.sign(message),
  });
}

/** RecoveryChallenge, backup-code mode. */
export async function completeWithCode(api: Api, owner: string, newWallet: TestUser, code: string) {
  const message = newWalletProof(owner, newWallet.address);
  return api.post('/api/v1/recovery/challenge', {
    address: owner,
    new_wallet_address: newWallet.address,
    backup_code: code,
    message,
    signature: await newWallet.sign(message),
  });
}
