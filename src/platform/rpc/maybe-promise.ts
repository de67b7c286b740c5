/**
 * Values that are ready now or later. The hot path of a request (HTTP server, REST gateway, RPC
 * middleware chain) passes a handler's result on as it came: a call whose handler answers
 * synchronously (GET /api/version, refusals) is then written before its uWS callback returns,
 * with no promise allocated and no microtask hop per layer. Only real waiting costs a promise.
 */
export type MaybePromise<T> = T | Promise<T>;

export function isPromise<T>(value: MaybePromise<T>): value is Promise<T> {
  return value instanceof Promise;
}

/**
 * `onValue(run())`, or `onError(error)` if `run` or `onValue` throws (or their promise rejects):
 * synchronously when `run` answers synchronously, else once its promise settles.
 */
export function settle<T, R>(
  run: () => MaybePromise<T>,
  onValue: (value: T) => MaybePromise<R>,
  onError: (error: unknown) => MaybePromise<R>,
): MaybePromise<R> {
  let result: MaybePromise<T>;
  try {
    result = run();
  } catch (error) {
    return onError(error);
  }
  if (isPromise(result)) return result.then(onValue).catch(onError);
  try {
    return onValue(result);
  } catch (error) {
    return onError(error);
  }
}
