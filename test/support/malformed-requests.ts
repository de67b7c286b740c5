/**
 * The bad-input sweeps of test/contract: malformed bodies and queries sent to a set of routes,
 * where every answer must be either a success or the documented error envelope with a 4xx —
 * never a 5xx, a non-JSON body or an envelope without its code. The answers that are neither are
 * collected, so one test lists every offending request at once.
 */
import type { Json } from './json.js';

export class EnvelopeSweep {
  readonly failures: string[] = [];

  /** Sends one request and records it when its answer is neither a success nor a 4xx envelope. */
  async check(label: string, send: () => Promise<Response>): Promise<void> {
    const response = await send();
    const text = await response.text();
    let body: Json;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const refused =
      response.status >= 400 &&
      response.status < 500 &&
      body?.success === false &&
      typeof body.code === 'string' &&
      typeof body.error === 'string';
    const ok = response.status === 200 && body?.success === true;
    if (!ok && !refused) this.failures.push(`${label}: ${response.status} ${text.slice(0, 200)}`);
  }

  /**
   * Sends each of `rawBodies` as it is, then `base()` with each of `fields` set to each of
   * `wrongValues`, to `method url` with `headers`.
   */
  async bodies(
    label: string,
    request: { url: string; method: string; headers: Record<string, string> },
    malformed: {
      rawBodies: readonly string[];
      fields: readonly string[];
      wrongValues: readonly unknown[];
      base: () => Record<string, unknown>;
    },
  ): Promise<void> {
    const { url, method, headers } = request;
    for (const raw of malformed.rawBodies)
      await this.check(`${label} ${raw}`, () => fetch(url, { method, headers, body: raw }));
    for (const field of malformed.fields)
      for (const value of malformed.wrongValues)
        await this.check(`${label} ${field}=${JSON.stringify(value).slice(0, 30)}`, () =>
          fetch(url, {
            method,
            headers,
            body: JSON.stringify({ ...malformed.base(), [field]: value }),
          }),
        );
  }
}
