import type { MessageHandler, SharedStateLogger } from './shared-state.js';

/**
 * Calls one subscriber. A failing handler is logged and isolated: it must not stop
 * delivery to the other handlers nor tear down the subscriber connection.
 */
export function deliverMessage(
  handler: MessageHandler,
  message: string,
  channel: string,
  logger: SharedStateLogger,
): void {
  // The async wrapper turns a synchronous throw into a rejection, so one catch serves both.
  (async () => handler(message))().catch((error: unknown) => {
    logger.error({ err: error, channel }, 'shared-state message handler failed');
  });
}
