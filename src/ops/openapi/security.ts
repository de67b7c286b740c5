/**
 * Authentication as the spec's "Authentication > Schemes" describes it, and the requirement of
 * each operation as its RPC declares it with `option (service.v1.access)`.
 */
import type { DescMethod } from '@bufbuild/protobuf';
import { CSRF_TOKEN_INVALID } from '../../identity/auth/csrf.js';
import { accessOf } from '../../platform/api/api-services.js';
import type { SecurityRequirements, SecurityScheme } from './openapi-types.js';

export function securitySchemes(sessionCookieName: string): Record<string, SecurityScheme> {
  return {
    BearerAuth: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description:
        'The primary scheme: a short-lived access token (15 minutes) identifying the session.',
    },
    CookieSession: {
      type: 'apiKey',
      in: 'cookie',
      name: sessionCookieName,
      description:
        'The browser session cookie set by POST /api/v1/initialize. Unsafe methods (POST, PUT, PATCH, ' +
        'DELETE) also need the CSRF token of the CSRF cookie in the X-CSRF-Token header (rotated by ' +
        `POST /api/v1/auth/csrf); without a valid one the answer is 403 ${CSRF_TOKEN_INVALID}.`,
    },
    SignatureAuth: {
      type: 'apiKey',
      in: 'header',
      name: 'X-Signature',
      description:
        'Ethereum wallet signature for request-level authentication on signature-gated operations, on top of ' +
        "the access token: `<timestamp_ms>.<signature>`, the EIP-191 signature by the caller's wallet of " +
        '"<SERVICE_NAME> Signed Request\\nWallet: <address>\\nRPC: /<package>.<Service>/<Method>\\nBody-SHA256: <hex of the request message\'s protobuf encoding>\\nTimestamp: <timestamp_ms>" ' +
        '(options.proto, `signature_required`): within 5 minutes of server time, accepted once, low-S.',
    },
    WalletAuth: {
      type: 'apiKey',
      in: 'header',
      name: 'X-Wallet-Address',
      description:
        'Informational: identity always comes from the JWT subject; the header is accepted only when it ' +
        'equals the subject and is otherwise dropped.',
    },
  };
}

/** What an RPC without an access option needs: a verified access token, by either carrier. */
export const DEFAULT_SECURITY: SecurityRequirements = [{ BearerAuth: [] }, { CookieSession: [] }];

/** The operation's own requirement, or undefined when it takes the document's default. */
export function operationSecurity(method: DescMethod): SecurityRequirements | undefined {
  const access = accessOf(method);
  if (access?.public) return [];
  if (access?.cookieSessionOnly) return [{ CookieSession: [] }];
  // Both requirements of an alternative must hold: the session and the request's signature.
  if (access?.signatureRequired)
    return DEFAULT_SECURITY.map((session) => ({ ...session, SignatureAuth: [] }));
  return undefined;
}
