// The in-memory backend's session logs: the window's own and a few recorded ones to open (one of
// them still being written, as by another Sonde process), each with what the desktop backend's
// log calls answer: pages by seq and by row, a filter's matches counted a bounded amount at a time and paged
// by position, a follow stream that ends when the log can grow no more. A double of the core's
// contract (src/log), not of its implementation; the filter is memoryFilter.ts's.
import type { ConnectionLabel, Entry, LogBatch, MatchCount, Page, SessionInfo } from "./backend";
import type { LogLength, Outcome } from "./bindings";
// How many entries a count looks at per call, as the core's: callers are seen to call again.
import { COUNT_BUDGET } from "./bindings";
import canned from "./canned.json";
/** How often the session "being written" gets its next entry, once it is opened. */
const WRITE_MS = 300;

export type Matcher = (filter: string) => (e: Entry) => boolean;

export class MemoryLog {
  readonly entries: Entry[] = [];
  private followers: ((b: LogBatch) => void)[] = [];
  private counts = new Map<string, { seqs: number[]; scanned: number }>();
  ended = false;

  constructor(private readonly matcher: Matcher) {}

  append(entry: Entry) {
    this.entries.push(entry);
    for (const f of this.followers) f({ entries: [entry], rows: [this.entries.length - 1], skipped: 0, ended: false });
  }

  end() {
    this.ended = true;
    for (const f of this.followers) f({ entries: [], rows: [], skipped: 0, ended: true });
    this.followers = [];
  }

  /** The double's file never fails a write: every entry has a row, at its seq. */
  follow(onBatch: (b: LogBatch) => void): LogLength {
    if (this.ended) setTimeout(() => onBatch({ entries: [], rows: [], skipped: 0, ended: true }), 0);
    else this.followers.push(onBatch);
    return this.length();
  }

  length(): LogLength {
    return { entries: this.entries.length, rows: this.entries.length };
  }

  rowPage(from: number, limit: number): Entry[] {
    return this.entries.slice(from, from + limit);
  }

  rowOf(seq: number): number | null {
    return seq < this.entries.length ? seq : null;
  }

  page(from: number, to: number, filter: string, limit: number): Page {
    const matches = this.matcher(filter);
    const out: Entry[] = [];
    for (let s = from; s < Math.min(to, this.entries.length); s++) {
      if (!matches(this.entries[s])) continue;
      if (out.length === limit) return { entries: out, next: s };
      out.push(this.entries[s]);
    }
    return { entries: out, next: null };
  }

  private seek(filter: string, to: number, budget: number, want: number) {
    const matches = this.matcher(filter);
    let found = this.counts.get(filter);
    if (!found) this.counts.set(filter, (found = { seqs: [], scanned: 0 }));
    const end = Math.min(to, this.entries.length);
    for (let looked = 0; found.scanned < end && looked < budget && found.seqs.length < want; looked++) {
      if (matches(this.entries[found.scanned])) found.seqs.push(found.scanned);
      found.scanned++;
    }
    return found;
  }

  countMatches(filter: string, to: number): MatchCount {
    const found = this.seek(filter, to, COUNT_BUDGET, Infinity);
    return { count: found.seqs.length, scanned: found.scanned };
  }

  matchPage(filter: string, from: number, limit: number): Entry[] {
    const found = this.seek(filter, Infinity, Infinity, from + limit);
    return found.seqs.slice(from, from + limit).map((s) => this.entries[s]);
  }

  matchPosition(filter: string, seq: number): number | null {
    const at = this.seek(filter, seq + 1, Infinity, Infinity).seqs.indexOf(seq);
    return at < 0 ? null : at;
  }

  /** The reply the double paired with the request at `seq` (`answers`), never one found by id;
   * the double's servers never die with a request pending. */
  outcomeOf(seq: number): Outcome | null {
    const reply = this.entries.find(
      (e) => Number(e.seq) > seq && Number(e.answers) === seq && e.kind === "message" && e.summary?.id != null,
    );
    if (!reply) return null;
    const outcome = reply.summary?.type === "error" ? "error" : "result";
    return { outcome, seq: Number(reply.seq), words: outcome === "error" ? "answered with an error" : "answered" };
  }

  /** Each connection's name: its saved server's, else the command it spawned. */
  labels(): ConnectionLabel[] {
    const named = new Map<number, string>();
    for (const e of this.entries) {
      const l = e.lifecycle as { event?: string; name?: string; command?: string } | null | undefined;
      const conn = Number(e.conn);
      if (l?.event === "server" && l.name) named.set(conn, l.name);
      else if (l?.event === "spawned" && l.command && !named.has(conn)) named.set(conn, l.command);
    }
    return [...named].sort(([a], [b]) => a - b).map(([conn, server]) => ({ conn, server }));
  }

  size(): number {
    return this.entries.reduce((n, e) => n + JSON.stringify(e).length + 1, 0);
  }
}

/** A recorded session: what a listing says of it, its log, and the entries still to be written. */
export interface Recorded {
  info: Omit<SessionInfo, "size" | "writing">;
  log: MemoryLog;
  toWrite: Entry[];
  writing: boolean;
}

/** The recorded sessions a fresh in-memory backend offers, newest first (canned.json): a
 * `sonde proxy --name ticks` run still being written, a `sonde tools list` run whose writer was
 * killed, and one from before sessions had cards. */
export function recordedSessions(matcher: Matcher): Recorded[] {
  return canned.sessions.map(({ info, entries, toWrite }) => {
    const log = new MemoryLog(matcher);
    for (const e of entries) log.append(e as Entry);
    log.ended = toWrite.length === 0;
    return { info: info as Recorded["info"], log, toWrite: toWrite as Entry[], writing: toWrite.length > 0 };
  });
}

/** Starts writing what a recorded session has still to write, if it has not started yet. */
export function keepWriting(r: Recorded) {
  if (r.toWrite.length === 0 || !r.writing) return;
  const next = r.toWrite;
  r.toWrite = [];
  const timer = setInterval(() => {
    const e = next.shift();
    if (e) r.log.append(e);
    if (next.length === 0) {
      clearInterval(timer);
      r.writing = false;
      r.log.end();
    }
  }, WRITE_MS);
}

export function infoOf(r: Recorded): SessionInfo {
  return { ...r.info, size: r.log.size(), writing: r.writing };
}
