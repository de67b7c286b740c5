import type { StoreLogger } from '../../src/platform/store/store-logger.js';

/** A StoreLogger for tests that do not look at logs. */
export const silentLogger: StoreLogger = {
  info() {},
  warn() {},
  error() {},
};
