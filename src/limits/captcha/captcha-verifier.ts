/**
 * Server-side verification of a CAPTCHA answer with its provider's siteverify endpoint
 * (Cloudflare Turnstile or hCaptcha; both take the same form fields and answer `{ success }`).
 * The secret and the token are sent to the provider only: they never appear in an error
 * message, a log line or a thrown error's cause.
 */

export type CaptchaProvider = 'turnstile' | 'hcaptcha';

export const CAPTCHA_PROVIDERS: readonly CaptchaProvider[] = ['turnstile', 'hcaptcha'];

export const SITEVERIFY_URLS: Readonly<Record<CaptchaProvider, string>> = {
  turnstile: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
  hcaptcha: 'https://api.hcaptcha.com/siteverify',
};

export const DEFAULT_CAPTCHA_TIMEOUT_MS = 5_000;

export interface CaptchaVerifierOptions {
  readonly provider: CaptchaProvider;
  readonly secret: string;
  /** Overrides the provider's siteverify URL (tests, self-hosted proxies). */
  readonly verifyUrl?: string;
  /** How long to wait for the provider; default 5 s. */
  readonly timeoutMs?: number;
  /** The fetch to use; default the global one. */
  readonly fetch?: typeof fetch;
}

export interface CaptchaVerifier {
  readonly provider: CaptchaProvider;
  /**
   * Whether the provider accepts the token. Throws CaptchaUnavailableError when the provider
   * cannot answer (network error, timeout, non-2xx status, malformed body).
   */
  verify(token: string, remoteIp: string): Promise<boolean>;
}

/** The provider could not give a verdict; the gate answers 503 rather than letting the call through. */
export class CaptchaUnavailableError extends Error {
  override readonly name = 'CaptchaUnavailableError';

  constructor(
    readonly provider: CaptchaProvider,
    readonly reason: 'timeout' | 'network' | 'status' | 'malformed',
    message: string,
  ) {
    super(message);
  }
}

export function createCaptchaVerifier(options: CaptchaVerifierOptions): CaptchaVerifier {
  const { provider, secret } = options;
  if (!CAPTCHA_PROVIDERS.includes(provider))
    throw new Error(`unknown CAPTCHA provider "${String(provider)}"`);
  if (!secret) throw new Error('a CAPTCHA secret is required');
  const url = options.verifyUrl ?? SITEVERIFY_URLS[provider];
  const timeoutMs = options.timeoutMs ?? DEFAULT_CAPTCHA_TIMEOUT_MS;
  const doFetch = options.fetch ?? globalThis.fetch;

  return {
    provider,
    async verify(token, remoteIp) {
      const form = new URLSearchParams({ secret, response: token });
      if (remoteIp) form.set('remoteip', remoteIp);
      const signal = AbortSignal.timeout(timeoutMs);
      let response: Response;
      try {
        response = await doFetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            accept: 'application/json',
          },
          body: form.toString(),
          signal,
          redirect: 'error',
        });
      } catch (error) {
        // The underlying error is not kept as the cause: keep the message free of request data.
        if (signal.aborted || isAbort(error)) {
          throw new CaptchaUnavailableError(
            provider,
            'timeout',
            `${provider} siteverify did not answer within ${timeoutMs} ms`,
          );
        }
        throw new CaptchaUnavailableError(
          provider,
          'network',
          `${provider} siteverify is unreachable`,
        );
      }
      let body: unknown;
      try {
        if (!response.ok) {
          await response.body?.cancel().catch(() => undefined);
          throw new CaptchaUnavailableError(
            provider,
            'status',
            `${provider} siteverify answered HTTP ${response.status}`,
          );
        }
        body = await response.json();
      } catch (error) {
        if (error instanceof CaptchaUnavailableError) throw error;
        if (signal.aborted || isAbort(error)) {
          throw new CaptchaUnavailableError(
            provider,
            'timeout',
            `${provider} siteverify did not answer within ${timeoutMs} ms`,
          );
        }
        throw new CaptchaUnavailableError(
          provider,
          'malformed',
          `${provider} siteverify answered a body that is not JSON`,
        );
      }
      const success =
        typeof body === 'object' && body !== null
          ? (body as { success?: unknown }).success
          : undefined;
      if (typeof success !== 'boolean') {
        throw new CaptchaUnavailableError(
          provider,
          'malformed',
          `${provider} siteverify answered without a boolean "success"`,
        );
      }
      return success;
    },
  };
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}
