/**
 * Every request the workload makes, with its kind, when it started and ended and how it was
 * answered: the checker reads from it which 5xx fell outside a fault window and the report how
 * many operations of each kind ran. Requests go over real HTTP with a generous timeout: on a
 * shared 2-core machine a slow answer is contention, and only an answer says what happened.
 */
import type { Json } from '../support/json.js';
import type { SignedIn } from '../support/wallet.js';
import { bearer } from '../support/wallet.js';

/** An HTTP status, or why there was none. */
export type Outcome = number | 'timeout' | 'no connection';

export interface Operation {
  readonly kind: string;
  /** Milliseconds since the soak started. */
  readonly startedAt: number;
  readonly endedAt: number;
  readonly outcome: Outcome;
  /** The error envelope's `code`. */
  readonly code: string | undefined;
  readonly retryAfter: string | null;
}

export interface Answer {
  readonly outcome: Outcome;
  readonly body: Json;
}

const REQUEST_TIMEOUT_MS = 30_000;

export class Recorder {
  readonly operations: Operation[] = [];
  private readonly startedAt = Date.now();

  /** Milliseconds since the soak started: the time base of operations and fault windows. */
  now(): number {
    return Date.now() - this.startedAt;
  }

  /** One REST call as `session` (or anonymous), recorded under `kind`. */
  async call(
    kind: string,
    baseUrl: string,
    request: { method?: string; path: string; body?: unknown; session?: SignedIn },
  ): Promise<Answer> {
    const startedAt = this.now();
    const method = request.method ?? (request.body === undefined ? 'GET' : 'POST');
    try {
      const response = await fetch(`${baseUrl}${request.path}`, {
        method,
        headers: {
          ...(request.session ? bearer(request.session) : {}),
          ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const text = await response.text();
      const body = parseJson(text);
      this.operations.push({
        kind,
        startedAt,
        endedAt: this.now(),
        outcome: response.status,
        code: typeof body?.code === 'string' ? body.code : undefined,
        retryAfter: response.headers.get('retry-after'),
      });
      return { outcome: response.status, body };
    } catch (error) {
      const outcome = (error as Error).name === 'TimeoutError' ? 'timeout' : 'no connection';
      this.operations.push({
        kind,
        startedAt,
        endedAt: this.now(),
        outcome,
        code: undefined,
        retryAfter: null,
      });
      return { outcome, body: undefined };
    }
  }
}

function parseJson(text: string): Json {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return { unparsed: text.slice(0, 200) };
  }
}
