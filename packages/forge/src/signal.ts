/** A change notification without payload: "something happened, look again". */
export class Signal {
  private readonly listeners = new Set<() => void>();

  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  notify(): void {
    for (const fn of [...this.listeners]) fn();
  }
}
