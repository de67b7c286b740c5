import { isWalletAddress } from '../../accounts/wallet-address.js';
import { parseSignInMessage, type ParsedSignInMessage } from './sign-in-templates.js';
import { looksLikeSiwe, readSiweMessage, siweTimeProblem } from './siwe.js';
import type { SiweRules } from './siwe.js';
import type { SignerRecovery } from './signer-recovery.js';
import { WalletSignatures } from './wallet-signatures.js';
import type { WalletSignatureFailureCode } from './wallet-signatures.js';

/** How far the signed timestamp may be from server time, either way (spec, check 4). */
export const SIGN_IN_TOLERANCE_MS = 5 * 60_000;

export interface SignInAttempt {
  /** The request's `wallet_address`. */
  walletAddress: string;
  /** The request's `username`; empty counts as absent, as proto3 cannot tell them apart. */
  username?: string;
  message: string;
  signature: string;
  serviceName: string;
  nowMs: number;
  toleranceMs?: number;
}

/** SIWE_DOMAINS and the accepted chains; without them SIWE messages are refused as no template. */
export type SiweSettings = Pick<SiweRules, 'domains' | 'chainIds'>;

export type SignInRejectionReason =
  | 'UNAUTHORIZED'
  | 'EXPIRED_SIGNATURE'
  | 'INVALID_ARGUMENT'
  | 'SIWE_DOMAIN_MISMATCH'
  | 'SIWE_CHAIN_MISMATCH';

export type SignInVerification =
  | {
      ok: true;
      parsed: ParsedSignInMessage;
      /** The signer, lowercase. */
      address: string;
      /**
       * What the caller marks spent (check 5): an EOA's canonical signature, a contract
       * wallet's digest (wallet-signatures.ts), or for SIWE the wallet's nonce.
       */
      replayKey: string;
    }
  | { ok: false; reason: SignInRejectionReason; detail: string };

// A signature that is not even well formed is a bad request (400), as the Initialize contract
// lists it; one that is well formed but does not prove the wallet is a failed sign-in (401).
const SIGNATURE_REJECTION: Record<WalletSignatureFailureCode, SignInRejectionReason> = {
  MALFORMED_SIGNATURE: 'INVALID_ARGUMENT',
  INVALID_RECOVERY_ID: 'INVALID_ARGUMENT',
  SCALAR_OUT_OF_RANGE: 'UNAUTHORIZED',
  HIGH_S: 'UNAUTHORIZED',
  RECOVERY_FAILED: 'UNAUTHORIZED',
  NOT_SIGNER: 'UNAUTHORIZED',
};

function reject(reason: SignInRejectionReason, detail: string): SignInVerification {
  return { ok: false, reason, detail };
}

/**
 * Checks 1 to 4 of the wallet login (spec, "Wallet login"), in the spec's order, so the reason
 * reported is the first check that fails: template, wallet binding, signature, freshness. The
 * template is matched before any signature work, which keeps arbitrary strings away from the
 * curve arithmetic (and from the chain). Replay, rate limits, CAPTCHA and proof of work need
 * storage or request context and are the caller's; it marks `replayKey` spent after accepting
 * the sign-in. So is the status probe (neither message nor signature), which must be answered
 * before calling this.
 *
 * A message that matches no template but has EIP-4361's preamble is judged as SIWE
 * (verifySiwe); the templates' checks and codes are untouched by it.
 */
export async function verifySignInMessage(
  attempt: SignInAttempt,
  checker: Pick<WalletSignatures, 'verify'> | Pick<SignerRecovery, 'recover'>,
  siwe?: SiweSettings,
): Promise<SignInVerification> {
  // A bare signer recovery checks EOAs only, exactly as before contract wallets.
  const signatures =
    'verify' in checker
      ? checker
      : new WalletSignatures((m, s) => checker.recover(m, s), undefined);
  const { walletAddress, message, signature, nowMs, toleranceMs = SIGN_IN_TOLERANCE_MS } = attempt;

  const template = parseSignInMessage(message, attempt.serviceName);
  if (!template.ok) {
    if (siwe && looksLikeSiwe(message)) return verifySiwe(attempt, signatures, siwe);
    return reject('UNAUTHORIZED', template.detail);
  }
  const { parsed } = template;

  if (!isWalletAddress(walletAddress)) {
    return reject('INVALID_ARGUMENT', 'wallet_address must be 0x plus 40 hex digits');
  }
  const address = walletAddress.toLowerCase();
  if (parsed.wallet.toLowerCase() !== address) {
    return reject('UNAUTHORIZED', 'the Wallet line does not match wallet_address');
  }
  if (parsed.username !== undefined && attempt.username && parsed.username !== attempt.username) {
    return reject('UNAUTHORIZED', 'the Username line does not match username');
  }

  // An empty signature is an absent one (proto3), and a message without a signature is a failed
  // sign-in (401), not a malformed request.
  if (signature === '') return reject('UNAUTHORIZED', 'signature is required with message');
  const verified = await signatures.verify(message, signature, address);
  if (!verified.ok) return reject(SIGNATURE_REJECTION[verified.code], verified.detail);

  if (Math.abs(nowMs - parsed.timestampMs) > toleranceMs) {
    return reject(
      'EXPIRED_SIGNATURE',
      `the Timestamp is more than ${toleranceMs} ms away from server time`,
    );
  }

  return { ok: true, parsed, address, replayKey: verified.replayKey };
}

/**
 * The SIWE path, in the same order: message (strict parse, domain, URI, chain), binding (the
 * EIP-55 address is wallet_address), signature (on the message's chain), freshness (issued-at,
 * expiration-time, not-before). The replay key is the wallet's nonce, so a nonce is accepted
 * once per wallet whatever signature carries it.
 */
async function verifySiwe(
  attempt: SignInAttempt,
  signatures: Pick<WalletSignatures, 'verify'>,
  settings: SiweSettings,
): Promise<SignInVerification> {
  const { walletAddress, message, signature, nowMs, toleranceMs = SIGN_IN_TOLERANCE_MS } = attempt;
  const read = readSiweMessage(message, settings);
  if (!read.ok)
    return reject(read.refusal === 'MALFORMED' ? 'UNAUTHORIZED' : read.refusal, read.detail);
  const { siwe } = read;

  if (!isWalletAddress(walletAddress)) {
    return reject('INVALID_ARGUMENT', 'wallet_address must be 0x plus 40 hex digits');
  }
  const address = walletAddress.toLowerCase();
  if (siwe.address.toLowerCase() !== address) {
    return reject('UNAUTHORIZED', "the message's address does not match wallet_address");
  }

  if (signature === '') return reject('UNAUTHORIZED', 'signature is required with message');
  const verified = await signatures.verify(message, signature, address, { chainId: siwe.chainId });
  if (!verified.ok) return reject(SIGNATURE_REJECTION[verified.code], verified.detail);

  const problem = siweTimeProblem(siwe, nowMs, toleranceMs);
  if (problem !== undefined) return reject('EXPIRED_SIGNATURE', problem);

  return {
    ok: true,
    parsed: { kind: 'siwe', wallet: siwe.address, timestampMs: siwe.issuedAtMs },
    address,
    replayKey: `siwe:${address}:${siwe.nonce}`,
  };
}
