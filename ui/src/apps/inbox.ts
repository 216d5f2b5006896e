// The app frame's messages on their way to the core: one at a time, in order, and bounded. An
// app that floods the window (thousands of messages a second) gets its excess dropped and
// counted, so the window stays usable; the count is reported to the core, which records it, with
// the dropped requests (the first DROPPED_KEPT of them), which the core answers with an error so
// that no promise of the app waits forever.

/** How many messages may wait for the core; beyond it, each is dropped and counted. */
export const WAITING_MAX = 64;
/** How many dropped requests are kept, between two reports, to be answered (a request beyond
 * them, in one burst, is dropped unanswered: the bound on what a flood may hold). */
export const DROPPED_KEPT = 1000;

export class Inbox<T> {
  private waiting: T[] = [];
  private busy = false;
  private dropped = 0;
  private droppedRequests: T[] = [];

  constructor(
    private readonly handle: (item: T) => Promise<void>,
    private readonly onDropped: (count: number, requests: T[]) => void,
    /** Whether an item awaits an answer (a request), so that dropping it must answer it. */
    private readonly isRequest: (item: T) => boolean = () => false,
  ) {}

  push(item: T) {
    if (this.waiting.length >= WAITING_MAX) {
      this.dropped += 1;
      if (this.isRequest(item) && this.droppedRequests.length < DROPPED_KEPT) this.droppedRequests.push(item);
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
        if (this.dropped && this.waiting.length < WAITING_MAX / 2) this.report();
      }
    } finally {
      this.busy = false;
    }
    if (this.dropped) this.report();
  }

  private report() {
    this.onDropped(this.dropped, this.droppedRequests);
    this.dropped = 0;
    this.droppedRequests = [];
  }
}
