/**
 * Sends one push with `web-push` (RFC 8291 `aes128gcm` payload encryption, RFC 8292 VAPID
 * signature, RFC 8030 TTL, Urgency and Topic headers) and sorts the push service's answer into
 * what the queue does next, as Mastodon does: 2xx sent; 404 and 410 mean the subscription is
 * gone, any other 4xx but 408 and 429 that it is unusable (e.g. bound to another VAPID key),
 * so it is removed; 429 waits for `Retry-After`; 408, 5xx and network failures are retried
 * with backoff.
 *
 * The VAPID JWT is signed once per push service (its origin is the JWT's audience) and reused
 * for VAPID_REUSE_MS: signing costs about twice as much as encrypting a payload, and RFC 8292
 * lets a token serve until it expires (here 12 hours, at most 24 allowed).
 *
 * The Topic header names the kind of event: a push service keeps only the newest pending push
 * of a topic for a device that is off, so a device that was away for a day gets one push per
 * kind, not one per coalescing window.
 */
import { Agent } from 'node:https';
import { createSecureContext, rootCertificates } from 'node:tls';
import webPush from 'web-push';
import type { VapidKeys } from '../vapid/vapid-keys.js';
import type { DeliveryJob } from './push-queue.js';
import { WAKE_KINDS } from './wake-kinds.js';

export type SendOutcome =
  | { readonly outcome: 'sent' }
  | { readonly outcome: 'gone' | 'rejected'; readonly status: number }
  | {
      readonly outcome: 'retry';
      readonly reason: 'server_error' | 'throttled' | 'network';
      readonly retryAfterMs: number | null;
    };

export interface PushSenderOptions {
  readonly vapid: VapidKeys;
  /** Abandon a request silent for this long. */
  readonly timeoutMs: number;
  /** Egress proxy URL, if pushes must leave through one. */
  readonly proxyUrl: string | undefined;
  /** Extra certificate authorities (PEM) to trust besides the system's: a self-hosted push gateway. */
  readonly extraCa: string | undefined;
}

const VAPID_LIFETIME_SECONDS = 12 * 3600;
const VAPID_REUSE_MS = 6 * 3600_000;
/** Push services a deployment talks to are a handful; the bound only guards against a flood of made-up origins. */
const MAX_CACHED_AUDIENCES = 1000;

export class PushSender {
  private readonly agent: Agent | undefined;
  /** The Authorization header per audience (push service origin), and when to sign a new one. */
  private readonly vapidHeaders = new Map<string, { authorization: string; renewAt: number }>();

  constructor(private readonly options: PushSenderOptions) {
    // Keep-alive: pushes to one push service reuse connections. A proxy brings its own agent.
    // Extra CAs go in one secure context made here: as a `ca` option the agent would join the
    // whole list of roots into its connection-pool key on every request, and parse it per connection.
    const secureContext = options.extraCa
      ? createSecureContext({ ca: [...rootCertificates, options.extraCa] })
      : undefined;
    this.agent = options.proxyUrl
      ? undefined
      : new Agent({ keepAlive: true, ...(secureContext ? { secureContext } : {}) });
  }

  async send(job: DeliveryJob): Promise<SendOutcome> {
    const { ttlSeconds, urgency } = WAKE_KINDS[job.kind];
    try {
      await webPush.sendNotification(
        { endpoint: job.endpoint, keys: { p256dh: job.p256dh, auth: job.auth } },
        job.payload,
        {
          headers: { Authorization: this.vapidAuthorization(new URL(job.endpoint).origin) },
          TTL: Math.max(0, Math.min(ttlSeconds, Math.floor((job.expiresAt - Date.now()) / 1000))),
          urgency,
          topic: job.kind,
          contentEncoding: 'aes128gcm',
          timeout: this.options.timeoutMs,
          ...(this.options.proxyUrl ? { proxy: this.options.proxyUrl } : { agent: this.agent }),
        },
      );
      return { outcome: 'sent' };
    } catch (error) {
      return outcomeOf(error);
    }
  }

  private vapidAuthorization(audience: string): string {
    const now = Date.now();
    const cached = this.vapidHeaders.get(audience);
    if (cached && cached.renewAt > now) return cached.authorization;
    const { subject, publicKey, privateKey } = this.options.vapid;
    const expiration = Math.floor(now / 1000) + VAPID_LIFETIME_SECONDS;
    const { Authorization: authorization } = webPush.getVapidHeaders(
      audience,
      subject,
      publicKey,
      privateKey,
      'aes128gcm',
      expiration,
    );
    if (this.vapidHeaders.size >= MAX_CACHED_AUDIENCES) this.vapidHeaders.clear();
    this.vapidHeaders.set(audience, { authorization, renewAt: now + VAPID_REUSE_MS });
    return authorization;
  }

  close(): void {
    this.agent?.destroy();
  }
}

function outcomeOf(error: unknown): SendOutcome {
  if (!(error instanceof webPush.WebPushError))
    return { outcome: 'retry', reason: 'network', retryAfterMs: null };
  const status = error.statusCode;
  if (status === 404 || status === 410) return { outcome: 'gone', status };
  if (status === 429)
    return {
      outcome: 'retry',
      reason: 'throttled',
      retryAfterMs: retryAfterMs(error.headers['retry-after']),
    };
  if (status === 408 || status >= 500)
    return {
      outcome: 'retry',
      reason: 'server_error',
      retryAfterMs: retryAfterMs(error.headers['retry-after']),
    };
  if (status >= 400) return { outcome: 'rejected', status };
  return { outcome: 'retry', reason: 'server_error', retryAfterMs: null };
}

/** `Retry-After` as delay-seconds or an HTTP date (RFC 9110 section 10.2.3); null when absent or unreadable. */
export function retryAfterMs(
  header: string | string[] | undefined,
  now = Date.now(),
): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // The IMF-fixdate every sender must produce, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
  if (!/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(text)) return null;
  return Math.max(0, Date.parse(text) - now);
}
