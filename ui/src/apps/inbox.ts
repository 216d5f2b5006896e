// The app frame's messages on their way to the core: one at a time, in order, and bounded. An
// app that floods the window (thousands of messages a second) gets its excess dropped and
// counted, so the window stays usable; the count is reported to the core, which records it.

/** How many messages may wait for the core; beyond it, each is dropped and counted. */
export const WAITING_MAX = 64;

export class Inbox<T> {
  private waiting: T[] = [];
  private busy = false;
  private dropped = 0;

  constructor(
    private readonly handle: (item: T) => Promise<void>,
    private readonly onDropped: (count: number) => void,
  ) {}

  push(item: T) {
    if (this.waiting.length >= WAITING_MAX) {
      this.dropped += 1;
      return;
    }
    this.waiting.push(item);
    void this.drain();
  }

  private async drain() {
    if (this.busy) return;
    this.busy = true;
    try {
      for (let next = this.waiting.shift(); next !== undefined; next = this.waiting.shift()) {
        await this.handle(next).catch(() => undefined);
        // Drops are said once the queue has room again, as one count, not once per message.
        if (this.dropped && this.waiting.length < WAITING_MAX / 2) {
          this.onDropped(this.dropped);
          this.dropped = 0;
        }
      }
    } finally {
      this.busy = false;
    }
    if (this.dropped) {
      this.onDropped(this.dropped);
      this.dropped = 0;
    }
  }
}
