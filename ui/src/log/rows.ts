// The rows a log list holds: pages of the list read from the core as they come into view, at
// most MAX_ROWS of them at once (the pages shown least recently go first), so the webview holds a
// bounded slice of a session of any size.
import type { Entry } from "../ipc";

/** Rows per page read from the core. */
export const PAGE = 200;
/** The most rows a list holds at once (the pages on screen are kept even beyond it). */
export const MAX_ROWS = 20_000;

/** Reads the page of rows `start..start + PAGE`: each entry at its offset from `start`, with holes
 * where the list has no row. */
export type ReadPage = (start: number) => Promise<(Entry | undefined)[]>;

interface Held {
  rows: (Entry | undefined)[];
  /** How many of `rows` are there. */
  count: number;
  /** The list's length when the page was last read (-1: never), so a page is read again only
   * when the list has grown into it since. */
  readAt: number;
}

export class RowCache {
  /** By page number; a Map keeps insertion order, which is kept as the order pages were shown. */
  private pages = new Map<number, Held>();
  private reading = new Set<number>();
  private held = 0;
  private shown = { first: 0, last: -1 };
  private dropped = false;

  constructor(
    private readonly read: ReadPage,
    /** Called when rows arrive, so the list can show them. */
    private readonly changed: () => void,
    private readonly max = MAX_ROWS,
  ) {}

  /** How many rows are held. */
  get size(): number {
    return this.held;
  }

  get(i: number): Entry | undefined {
    return this.pages.get(Math.floor(i / PAGE))?.rows[i % PAGE];
  }

  /** The position of the entry with this seq among the rows held, if it is held. */
  indexOf(seq: number): number | null {
    for (const [p, page] of this.pages) {
      const k = page.rows.findIndex((e) => e !== undefined && Number(e.seq) === seq);
      if (k >= 0) return p * PAGE + k;
    }
    return null;
  }

  /** Keeps a row that arrived on its own (a streamed entry), within the bound. */
  put(i: number, entry: Entry) {
    const page = this.page(Math.floor(i / PAGE));
    if (page.rows[i % PAGE] === undefined) {
      page.count++;
      this.held++;
    }
    page.rows[i % PAGE] = entry;
    this.evict();
  }

  /**
   * Rows `first..=last` are on screen, of a list `length` rows long: reads the pages there that
   * lack rows the list now has, marks them the most recently shown, and lets go of the pages shown
   * least recently while more than the bound are held.
   */
  show(first: number, last: number, length: number) {
    this.shown = { first: Math.floor(first / PAGE), last: Math.floor(last / PAGE) };
    for (let p = this.shown.first; p <= this.shown.last; p++) {
      const page = this.pages.get(p);
      if (page) {
        this.pages.delete(p);
        this.pages.set(p, page);
      }
      const rows = Math.min(PAGE, length - p * PAGE);
      const lacking = !page || (page.count < rows && page.readAt < length);
      if (lacking && !this.reading.has(p)) void this.load(p, length);
    }
    this.evict();
  }

  /** Lets go of every row from `i` on, to be read again: the list's rows there are no longer
   * the ones held (a failed write took them back). */
  dropFrom(i: number) {
    for (const [p, page] of this.pages) {
      const from = Math.max(0, i - p * PAGE);
      if (from >= PAGE) continue;
      for (let k = from; k < page.rows.length; k++) {
        if (page.rows[k] === undefined) continue;
        page.count--;
        this.held--;
      }
      page.rows.length = Math.min(page.rows.length, from);
      page.readAt = -1;
    }
    this.changed();
  }

  /** Stops taking rows: the list this cache was for is gone. */
  drop() {
    this.dropped = true;
    this.pages.clear();
    this.held = 0;
  }

  private page(p: number): Held {
    let page = this.pages.get(p);
    if (!page) this.pages.set(p, (page = { rows: [], count: 0, readAt: -1 }));
    return page;
  }

  private async load(p: number, length: number) {
    this.reading.add(p);
    let rows: (Entry | undefined)[];
    try {
      rows = await this.read(p * PAGE);
    } catch {
      // The core could not read it (an IO error); tried again once the list grows.
      rows = [];
    } finally {
      this.reading.delete(p);
    }
    if (this.dropped) return;
    const page = this.page(p);
    rows.forEach((e, k) => {
      if (e === undefined) return;
      if (page.rows[k] === undefined) {
        page.count++;
        this.held++;
      }
      page.rows[k] = e;
    });
    page.readAt = Math.max(page.readAt, length);
    this.evict();
    this.changed();
  }

  private evict() {
    for (const [p, page] of this.pages) {
      if (this.held <= this.max) return;
      if (p >= this.shown.first && p <= this.shown.last) continue;
      this.pages.delete(p);
      this.held -= page.count;
    }
  }
}
