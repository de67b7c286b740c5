/**
 * The `X-Signature` check of signature-gated RPCs (`(access).signature_required`): a stolen
 * access token is not enough for them, the caller's wallet must sign the very request. The
 * sign-in rules apply: timestamp within 5 minutes, low-S, and each signature accepted once
 * (spent in the store, like sign-in signatures, so the rule survives restarts and a Redis that
 * lost its data). The signed request names the RPC and the protobuf encoding of its message
 * (wallet/request-signature.ts), the same whichever transport brought it.
 */
import { toBinary } from '@bufbuild/protobuf';
import type { DescMethod, DescMessage, MessageShape } from '@bufbuild/protobuf';
import type { HandlerContext } from '@connectrpc/connect';
import { unauthenticated } from '../../platform/errors/api-error.js';
import { requestHeaderOf } from '../../platform/rpc/request-header.js';
import { parseSignatureHeader, verifySignedRequest } from '../wallet/request-signature.js';
import type { SignerRecovery } from '../wallet/signer-recovery.js';
import { SIGN_IN_TOLERANCE_MS } from '../wallet/verify-sign-in.js';

export const SIGNATURE_HEADER = 'x-signature';

/** Sign-in's spent-signature store (signin/spent-signatures.ts): true when the signature was unspent. */
export interface SignatureSpender {
  spend(replayKey: string): Promise<boolean>;
}

export class RequestSignatures {
  constructor(
    private readonly serviceName: string,
    private readonly spentSignatures: SignatureSpender,
    private readonly signers: Pick<SignerRecovery, 'recover'>,
  ) {}

  /** Throws 401 unless the call carries a fresh, unspent signature of itself by `wallet`. */
  async require(
    wallet: string,
    method: DescMethod,
    request: unknown,
    context: HandlerContext,
  ): Promise<void> {
    const header = parseSignatureHeader(requestHeaderOf(context, SIGNATURE_HEADER) ?? '');
    if (!header)
      throw unauthenticated(
        'This operation needs an X-Signature header: <timestamp_ms>.<signature>',
        'SIGNATURE_REQUIRED',
      );
    const verified = await verifySignedRequest(
      {
        serviceName: this.serviceName,
        wallet,
        rpc: `/${method.parent.typeName}/${method.name}`,
        // Re-encoded from the decoded request: protobuf-es writes fields in field-number order
        // and leaves out proto3 defaults, as every conforming encoder does.
        body: toBinary(method.input, request as MessageShape<DescMessage>),
        timestampMs: header.timestampMs,
      },
      header.signature,
      this.signers,
    );
    if (!verified.ok)
      throw unauthenticated('X-Signature is not the wallet signature of this request');
    if (Math.abs(Date.now() - header.timestampMs) > SIGN_IN_TOLERANCE_MS) {
      throw unauthenticated(
        'The X-Signature timestamp is more than 5 minutes from server time',
        'EXPIRED_SIGNATURE',
      );
    }
    if (!(await this.spentSignatures.spend(verified.replayKey)))
      throw unauthenticated('This signature was already used', 'REPLAY_DETECTED');
  }
}
