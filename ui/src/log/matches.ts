// The entries a filter matches, as the core decides: read page by page, and read on from where
// the last read ended each time the log grows. The UI never matches an entry itself, not even a
// streamed one.
import { useEffect, useRef, useState } from "react";
import { backend, type Entry, type Page } from "../ipc";

/** How many matches a filter loads before it skips to the entries that arrive later. */
export const MAX_MATCHES = 50_000;
const PAGE = 2000;

type LogPage = (from: number, to: number, filter: string, limit: number) => Promise<Page>;

/** Reads one filter's matches over a growing log, one read at a time, each seq once. */
export class MatchReader {
  private found: Entry[] = [];
  private capped = false;
  /** Every seq below this has been read. */
  private read = 0;
  /** How many entries the log is known to hold. */
  private end = 0;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly filter: string,
    private readonly logPage: LogPage,
    private readonly publish: (found: Entry[], capped: boolean) => void,
  ) {}

  /**
   * The log holds `total` entries now: reads those not read yet, then publishes what it found.
   * Resolves when the reader has caught up (a read under way goes on to the new end).
   */
  reach(total: number): Promise<void> {
    this.end = Math.max(this.end, total);
    this.running ??= this.catchUp().finally(() => (this.running = null));
    return this.running;
  }

  /** Drops every answer still on its way: the filter changed. */
  stop() {
    this.stopped = true;
  }

  private async catchUp() {
    let grew = false;
    try {
      while (!this.stopped && this.read < this.end) {
        const end = this.end;
        const page = await this.logPage(this.read, end, this.filter, PAGE);
        if (this.stopped) return;
        this.found.push(...page.entries);
        grew ||= page.entries.length > 0;
        this.read = page.next == null ? end : Number(page.next);
        if (page.next != null && this.found.length >= MAX_MATCHES) {
          // Too many to hold: the rest of this read is skipped, entries that arrive later still join.
          this.capped = true;
          this.read = end;
        }
      }
    } catch {
      return; // The log could not be read (an IO error in the core); the list stays as it was.
    }
    if (grew && !this.stopped) this.publish([...this.found], this.capped);
  }
}

const NO_MATCHES: { matches: Entry[]; capped: boolean } = { matches: [], capped: false };

/** The matches of `filter` ("" for none) over a log of `total` entries. */
export function useMatches(filter: string, total: number): { matches: Entry[]; capped: boolean } {
  // The matches are kept with the filter they are for, so a new filter shows none until its own.
  const [state, setState] = useState<{ filter: string; matches: Entry[]; capped: boolean }>({
    filter: "",
    matches: [],
    capped: false,
  });
  const reader = useRef<MatchReader | null>(null);
  useEffect(() => {
    if (!filter) return;
    const r = new MatchReader(
      filter,
      (...page) => backend.logPage(...page),
      (matches, capped) => setState({ filter, matches, capped }),
    );
    reader.current = r;
    return () => {
      r.stop();
      reader.current = null;
    };
  }, [filter]);
  useEffect(() => void reader.current?.reach(total), [filter, total]);
  return state.filter === filter ? state : NO_MATCHES;
}
