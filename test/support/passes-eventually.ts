/** Retries `check` (which throws, e.g. a failed `expect`) every 250 ms until it passes; after `timeoutMs` its last failure is thrown. */
export async function passesEventually(check: () => Promise<void>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}
