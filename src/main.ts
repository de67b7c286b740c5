/**
 * Process entry point: `ROLE=all` (default) runs everything in one process; `api` and `ws` are
 * the two kinds of pods of a cluster. SIGTERM and SIGINT drain and stop it gracefully.
 */
import { startApp } from './app/start-app.js';
import { loadConfig } from './platform/config/load-config.js';
import { ConfigError } from './platform/config/setting.js';
import { createLogger } from './platform/logging/logger.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.process.logLevel);
  process.on('unhandledRejection', (reason) =>
    logger.error({ err: reason }, 'unhandled promise rejection'),
  );
  const app = await startApp(config, logger);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    app.shutdown().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`failed to start: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
