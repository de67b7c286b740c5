/**
 * Access tokens whose signature and claims were verified, kept until they expire so that the
 * next request with the same token skips the signature check (WebCrypto was about a twentieth of
 * the send path's CPU). Only what the token itself proves is remembered: whether its session is
 * still live is asked on every request (authenticate.ts, ws-authentication.ts), so an ended
 * session is refused exactly as before.
 *
 * A remembered token is given back only while it is unexpired by the same rule jose applies
 * (`exp` after now minus the clock tolerance); after that the full verification runs again and
 * reports it expired. The cache holds at most MAX_TOKENS; the oldest entry leaves first.
 */
const MAX_TOKENS = 10_000;

export class VerifiedTokens<Claims extends { readonly exp: number }> {
  private readonly byToken = new Map<string, Claims>();

  constructor(private readonly clockToleranceSeconds: number) {}

  /** The claims of a verified token still valid at `now`, or undefined. */
  get(token: string, now: Date): Claims | undefined {
    const claims = this.byToken.get(token);
    if (claims === undefined) return undefined;
    if (claims.exp > Math.floor(now.getTime() / 1000) - this.clockToleranceSeconds) return claims;
    this.byToken.delete(token);
    return undefined;
  }

  remember(token: string, claims: Claims): void {
    if (this.byToken.size >= MAX_TOKENS)
      this.byToken.delete(this.byToken.keys().next().value as string);
    this.byToken.set(token, claims);
  }
}
