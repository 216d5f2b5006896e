// How many entries a filter matches, as the core counts them: a bounded amount of work per call,
// called again until the count covers the log, and again from there each time the log grows. The
// UI never matches an entry itself; the matching rows are paged from the core by position
// (`backend.logMatchPage`, held by rows.ts).
import { useEffect, useRef, useState } from "react";
import { backend, type MatchCount, type SessionRef } from "../ipc";

type CountMatches = (filter: string, to: number) => Promise<MatchCount>;

/** Counts one filter's matches over a growing log, one call at a time. */
export class MatchCounter {
  /** How many entries the log is known to hold. */
  private end = 0;
  /** Every seq below this has been counted. */
  private scanned = 0;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly filter: string,
    private readonly count: CountMatches,
    private readonly publish: (count: MatchCount) => void,
  ) {}

  /**
   * The log holds `total` entries now: counts on until the core has looked at all of them,
   * publishing each answer. Resolves when it has (a count under way goes on to the new end).
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
    try {
      while (!this.stopped && this.scanned < this.end) {
        const answer = await this.count(this.filter, this.end);
        if (this.stopped) return;
        const moved = answer.scanned > this.scanned;
        this.scanned = answer.scanned;
        this.publish(answer);
        // The core holds fewer entries than the UI was told (it cannot, but a loop must not
        // spin on it): the next growth of the log asks again.
        if (!moved) return;
      }
    } catch {
      return; // The log could not be read (an IO error in the core); the count stays as it was.
    }
  }
}

/** The count of `filter`'s matches ("" for none: null) in a session of `total` entries, and
 * whether the core has looked at all of them yet. */
export function useMatchCount(
  filter: string,
  total: number,
  session: SessionRef,
): { count: number; counting: boolean } | null {
  // The count is kept with the filter it is for, so a new filter shows none until its own.
  const [state, setState] = useState<{ filter: string; count: MatchCount } | null>(null);
  const counter = useRef<MatchCounter | null>(null);
  useEffect(() => {
    if (!filter) return;
    const c = new MatchCounter(
      filter,
      (f, to) => backend.logCountMatches(session, f, to),
      (count) => setState({ filter, count }),
    );
    counter.current = c;
    return () => {
      c.stop();
      counter.current = null;
    };
  }, [filter, session]);
  useEffect(() => void counter.current?.reach(total), [filter, total, session]);
  if (!filter) return null;
  const count = state?.filter === filter ? state.count : { count: 0, scanned: 0 };
  return { count: Number(count.count), counting: Number(count.scanned) < total };
}
