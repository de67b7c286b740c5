/**
 * Runs tasks one after another. Every protocol operation reads, advances and writes stored
 * state; two at once (two messages to one peer, a message and a distribution) would each start
 * from the same state and one's advance would be lost — a reused message key.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
