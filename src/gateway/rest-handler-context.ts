/**
 * The HandlerContext of a REST call. Connect's `createHandlerContext` builds header objects and
 * linked abort controllers eagerly, which cost more than the rest of a small RPC together; here
 * each part is made only when the service touches it.
 */
import type { DescMethod, DescService } from '@bufbuild/protobuf';
import type { ContextValues, HandlerContext } from '@connectrpc/connect';

export class RestHandlerContext implements HandlerContext {
  readonly protocolName = 'rest';
  private abortController: AbortController | undefined;
  private requestHeaders: Headers | undefined;
  private responseHeaders: Headers | undefined;
  private responseTrailers: Headers | undefined;

  constructor(
    readonly service: DescService,
    readonly method: DescMethod,
    readonly requestMethod: string,
    readonly url: string,
    private readonly rawHeaders: ReadonlyMap<string, string>,
    readonly values: ContextValues,
  ) {}

  get signal(): AbortSignal {
    this.abortController ??= new AbortController();
    return this.abortController.signal;
  }

  readonly timeoutMs = (): number | undefined => undefined;

  /** One header, lower-case name, without building `requestHeader` (see request-header.ts). */
  rawHeader(name: string): string | null {
    return this.requestHeaders
      ? this.requestHeaders.get(name)
      : (this.rawHeaders.get(name) ?? null);
  }

  get requestHeader(): Headers {
    this.requestHeaders ??= new Headers([...this.rawHeaders]);
    return this.requestHeaders;
  }

  get responseHeader(): Headers {
    this.responseHeaders ??= new Headers();
    return this.responseHeaders;
  }

  get responseTrailer(): Headers {
    this.responseTrailers ??= new Headers();
    return this.responseTrailers;
  }

  /** The headers the service set for the response, Set-Cookie kept multi-valued. */
  headersToSend(): [string, string][] {
    const headers = this.responseHeaders;
    if (!headers) return [];
    const out: [string, string][] = [];
    headers.forEach((value, key) => {
      if (key !== 'set-cookie') out.push([key, value]);
    });
    for (const cookie of headers.getSetCookie()) out.push(['Set-Cookie', cookie]);
    return out;
  }

  /** Like Connect's handlers, tell whoever listens on `signal` that the call is over. */
  complete(): void {
    this.abortController?.abort();
  }
}
