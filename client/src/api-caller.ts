/**
 * How the SDK's feature modules (end-to-end encryption, messaging, …) reach the service: one call
 * of a REST route as the signed-in account. The session layer behind it owns tokens, refresh,
 * DPoP, cookies and CSRF, so a feature module never sees a credential.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ApiCaller {
  /**
   * Calls `method path` (a path under `/api/v1`, e.g. `/keys/0xabc…`) with `body` as JSON and
   * resolves with the parsed JSON response. Rejects with the service's error envelope
   * (an `ApiError` carrying status, code and message) on any status other than 2xx.
   */
  call<T = unknown>(method: HttpMethod, path: string, body?: unknown): Promise<T>;
}
