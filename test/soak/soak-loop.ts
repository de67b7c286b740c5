/**
 * What the soak's actors and samplers have in common: a loop that runs from construction until
 * `stop()`, which lets the step under way end (a request in flight is answered and recorded, a
 * fault under way heals) and waits for it.
 */
export abstract class SoakLoop {
  /** Read by the loop between its steps. */
  protected running = true;
  private loop: Promise<void> = Promise.resolve();

  /** Called by the subclass's constructor once its own fields are set. */
  protected start(loop: Promise<void>): void {
    this.loop = loop;
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}
