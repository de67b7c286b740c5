/**
 * Retries a request that failed for a reason that can pass (no answer, 429, 503), waiting what
 * the service asked (`Retry-After`) or a growing delay. Only for idempotent requests: a send is,
 * by its `client_message_id`.
 */
import { ApiError } from '../api-error.js';
import { backoffDelay } from '../realtime/backoff.js';

export async function withRetry<T>(request: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await request();
    } catch (error) {
      if (!(error instanceof ApiError) || !error.retryable || attempt + 1 >= attempts) throw error;
      const delay = error.retryAfterSeconds
        ? error.retryAfterSeconds * 1000
        : backoffDelay(attempt, { initialMs: 250, maxMs: 5000 });
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
