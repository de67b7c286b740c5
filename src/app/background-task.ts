/**
 * Work an area does on its own, started before the process serves (a start that returns a
 * promise is awaited) and stopped before storage closes.
 */
export interface BackgroundTask {
  start(): void | Promise<void>;
  stop(): Promise<void>;
}
