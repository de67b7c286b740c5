/**
 * One task at a time per key, in arrival order, within this process; different keys run
 * concurrently. A key's queue is forgotten once it runs empty, so idle keys cost nothing.
 */
export class SerialQueues {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<R>(key: string, task: () => Promise<R>): Promise<R> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task);
    // The next task waits for this one to settle, whether it succeeded or not.
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
