/**
 * A request as uWebSockets.js delivered it, in the shape route handlers receive
 * (IncomingRequest). Its head is copied at once: uWS invalidates `req` when the handler returns.
 * The client address is not: reading it allocates an ArrayBuffer in uWS and costs more than a
 * small RPC, and most calls never need it (only per-IP limits, sign-in bookkeeping, CAPTCHA
 * checks and the access log do). It is read on first use, from the response, which uWS keeps
 * valid until the response is written or aborted. Whoever hands the request on to code that
 * may ask later (after an await) must call `pinClientIp()` first; http-server.ts does, for
 * every request not answered before its uWS callback returns.
 */
import type { BlockList } from 'node:net';
import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import type { Logger } from '../platform/logging/logger.js';
import { requestIdFrom } from '../platform/rpc/request-id.js';
import { formatAddress } from './client-address.js';
import type { IncomingRequest } from './http-message.js';
import { resolveClientIp } from './trusted-proxies.js';

export class UwsRequest implements IncomingRequest {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly headers = new Map<string, string>();
  readonly requestId: string;
  body: Uint8Array | undefined;
  bodyStream?: AsyncIterable<Uint8Array>;
  private address: string | undefined;

  constructor(
    private readonly res: HttpResponse,
    req: HttpRequest,
    private readonly trustedProxies: BlockList | undefined,
    readonly logger: Logger,
  ) {
    req.forEach((key, value) => {
      const previous = this.headers.get(key);
      this.headers.set(key, previous === undefined ? value : `${previous}, ${value}`);
    });
    this.method = req.getCaseSensitiveMethod().toUpperCase();
    this.path = req.getUrl();
    this.query = req.getQuery() ?? '';
    this.requestId = requestIdFrom(this.headers.get('x-request-id'));
  }

  get clientIp(): string {
    if (this.address === undefined) {
      const socketAddress = formatAddress(this.res.getRemoteAddress());
      this.address =
        this.trustedProxies === undefined
          ? socketAddress
          : resolveClientIp(
              socketAddress,
              this.headers.get('x-forwarded-for'),
              this.trustedProxies,
            );
    }
    return this.address;
  }

  /** Reads the client address now, while the response is still valid, for whoever asks later. */
  pinClientIp(): void {
    void this.clientIp;
  }
}
