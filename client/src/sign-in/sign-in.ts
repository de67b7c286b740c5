/**
 * Signing in with a wallet (auth.proto, Initialize): one signed message, no server challenge.
 * A returning user signs template 1; with `registration` the registration template is signed
 * instead, which the service also accepts from an existing account (it then ignores the
 * username and name lines), so one request serves both without a status probe. With `siwe` an
 * EIP-4361 message is signed instead of a template (the only form contract wallets on other
 * chains and most wallet UIs show well).
 */
import { fromJson } from '@bufbuild/protobuf';
import type { JsonValue } from '@bufbuild/protobuf';
import type { AuthUser } from '../gen/service/v1/auth_pb.js';
import { InitializeResponseSchema } from '../gen/service/v1/auth_pb.js';
import { ApiError } from '../api-error.js';
import { apiErrorOf, fetchOrError } from '../session/authorized-session.js';
import { CookieSession } from '../session/cookie-session.js';
import { createDpopKey, dpopProof } from '../session/dpop-key.js';
import { TokenSession } from '../session/token-session.js';
import type { WalletSigner } from '../signer/wallet-signer.js';
import { solveProofOfWork } from './proof-of-work.js';
import { registrationTemplate, signInTemplate, siweMessage } from './sign-in-messages.js';
import type { SiweOptions } from './sign-in-messages.js';

export interface SignInOptions {
  /** The service's origin, e.g. `https://chat.example.com` (no trailing slash). */
  readonly baseUrl: string;
  readonly signer: WalletSigner;
  /** The service's `SERVICE_NAME` (the templates' brand name); default `Service`. */
  readonly serviceName?: string;
  /**
   * `token` (default): the session is held as tokens by this SDK. `cookie` (browsers): the
   * service's HttpOnly session cookie holds it, with the CSRF token on unsafe requests.
   */
  readonly mode?: 'token' | 'cookie';
  /**
   * Token mode: bind the refresh-token family to this key (DPoP), or `true` for a new
   * non-extractable one. Every refresh then needs a proof made with it.
   */
  readonly dpop?: boolean | CryptoKeyPair;
  /** Needed to create the account on a first sign-in. */
  readonly registration?: { readonly username: string; readonly displayName?: string };
  /** The service's `SERVICE_POW_DIFFICULTY_BITS` (0 or absent: off). */
  readonly powDifficultyBits?: number;
  /** Sign an EIP-4361 message instead of the service's templates. */
  readonly siwe?: SiweOptions;
  /** A label for the session in the session list. */
  readonly deviceName?: string;
}

export interface SignedIn<S extends TokenSession | CookieSession = TokenSession | CookieSession> {
  readonly session: S;
  readonly user: AuthUser;
  readonly isNewUser: boolean;
}

export function signIn(
  options: SignInOptions & { mode: 'cookie' },
): Promise<SignedIn<CookieSession>>;
export function signIn(
  options: SignInOptions & { mode?: 'token' },
): Promise<SignedIn<TokenSession>>;
export async function signIn(options: SignInOptions): Promise<SignedIn> {
  const wallet = await options.signer.address();
  const message = signInMessage(options, wallet);
  const bits = options.powDifficultyBits ?? 0;
  const powNonce = options.registration && bits > 0 ? await solveProofOfWork(message, bits) : '';
  const dpopKey =
    options.dpop === true ? await createDpopKey() : options.dpop ? options.dpop : undefined;
  const url = `${options.baseUrl}/api/v1/initialize`;
  const response = await fetchOrError(url, {
    method: 'POST',
    credentials: options.mode === 'cookie' ? 'include' : 'omit',
    headers: {
      'content-type': 'application/json',
      ...(dpopKey ? { dpop: await dpopProof(dpopKey, 'POST', url) } : {}),
    },
    body: JSON.stringify({
      wallet_address: wallet,
      message,
      signature: await options.signer.signMessage(message),
      username: options.registration?.username ?? '',
      pow_nonce: powNonce,
      device_name: options.deviceName ?? '',
    }),
  });
  if (!response.ok) throw await apiErrorOf(response);
  const body = fromJson(InitializeResponseSchema, (await response.json()) as JsonValue, {
    ignoreUnknownFields: true,
  });
  if (body.mfaRequired)
    throw new ApiError(
      200,
      'MFA_REQUIRED',
      'this account has MFA on: not supported by the SDK yet',
    );
  const session =
    options.mode === 'cookie'
      ? new CookieSession(options.baseUrl, body.csrfToken)
      : new TokenSession(
          options.baseUrl,
          {
            accessToken: body.accessToken,
            refreshToken: body.refreshToken,
            accessExpiresAt: Date.parse(body.expiresAt),
          },
          dpopKey,
        );
  return { session, user: body.user!, isNewUser: body.isNewUser };
}

function signInMessage(options: SignInOptions, wallet: string): string {
  if (options.siwe) return siweMessage(options.siwe, wallet, new Date());
  const serviceName = options.serviceName ?? 'Service';
  const { registration } = options;
  return registration
    ? registrationTemplate(
        serviceName,
        wallet,
        registration.username,
        registration.displayName ?? registration.username,
        Date.now(),
      )
    : signInTemplate(serviceName, wallet, Date.now());
}
