/**
 * A port that media's access rule asks but whose implementation is built after media (its
 * users hold media: channels, stories): the app binds it once, right after building the area
 * that answers. Until then every question gets "no", the safe answer for an access rule.
 */
export class LateBound<T> {
  private bound: T | undefined;

  bind(implementation: T): void {
    if (this.bound) throw new Error('Bound already');
    this.bound = implementation;
  }

  async ask(question: (implementation: T) => Promise<boolean>): Promise<boolean> {
    return this.bound ? question(this.bound) : false;
  }
}
