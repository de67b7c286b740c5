/** Retries `check` (which throws, e.g. a failed `expect`) every `intervalMs` until it passes; after `timeoutMs` its last failure is thrown. */
export async function passesEventually(
  check: () => Promise<void>,
  timeoutMs = 30_000,
  intervalMs = 250,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
