import type { HandlerContext } from '@connectrpc/connect';
import { unauthenticated } from '../../platform/errors/api-error.js';
import { DpopProofError } from '../tokens/dpop.js';
import type { DpopValidator } from '../tokens/dpop.js';
import { requestUri } from './request-uri.js';

/**
 * Validates the request's DPoP proof, if it must or may carry one. With `expectedJkt` (a bound
 * refresh family) the proof is mandatory and must be made with that key; without it, a proof
 * is optional and, when present, binds the new family to its key (RFC 9449 opt-in).
 */
export async function dpopKeyOf(
  dpop: DpopValidator,
  context: HandlerContext,
  expectedJkt?: string,
): Promise<string | null> {
  const header = context.requestHeader.get('dpop');
  if (header === null && expectedJkt === undefined) return null;
  try {
    const proof = await dpop.validate({
      header: header ?? undefined,
      method: context.requestMethod,
      uri: requestUri(context),
      ...(expectedJkt === undefined ? {} : { expectedJkt }),
    });
    return proof.jkt;
  } catch (error) {
    if (error instanceof DpopProofError)
      throw unauthenticated('A valid DPoP proof is required', 'INVALID_DPOP_PROOF');
    throw error;
  }
}
