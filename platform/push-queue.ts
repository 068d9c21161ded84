// A bounded queue read as an async iterator: producers push, one consumer pulls. When the consumer falls more than
// `maxQueue` items behind it loses the oldest, so a slow subscriber cannot grow memory without bound; or, given
// `overflow`, the queue ends with that error after the items it holds (a reader that can resume loses nothing).

export class PushQueue<T> implements AsyncIterableIterator<T> {
  private readonly items: T[] = [];
  private wake: (() => void) | undefined;
  private closed = false;
  private failure: { error: unknown } | null = null;

  /** `onReturn` runs once when the consumer stops reading (`return()`), not when the producer ends the queue. */
  constructor(
    private readonly maxQueue: number,
    private onReturn?: () => void,
    private readonly overflow?: () => unknown,
  ) {}

  push(item: T): void {
    if (this.closed) return;
    if (this.items.length >= this.maxQueue && this.overflow) {
      this.end({ error: this.overflow() });
      return;
    }
    this.items.push(item);
    if (this.items.length > this.maxQueue) this.items.splice(0, this.items.length - this.maxQueue);
    this.wake?.();
  }

  /** No more items: the consumer reads what is queued, then the end (or `error`, thrown from `next()`). */
  end(error?: { error: unknown }): void {
    if (this.closed) return;
    this.closed = true;
    this.failure = error ?? null;
    this.wake?.();
  }

  async next(): Promise<IteratorResult<T, undefined>> {
    while (!this.items.length && !this.closed) {
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
    this.wake = undefined;
    if (this.items.length) return { value: this.items.shift() as T, done: false };
    if (this.failure) {
      const { error } = this.failure;
      this.failure = null;
      throw error;
    }
    return { value: undefined, done: true };
  }

  async return(): Promise<IteratorResult<T, undefined>> {
    this.items.length = 0;
    this.end();
    const onReturn = this.onReturn;
    this.onReturn = undefined;
    onReturn?.();
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
