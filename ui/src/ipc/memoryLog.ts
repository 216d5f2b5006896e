// The in-memory backend's session logs: the window's own and a few recorded ones to open (one of
// them still being written, as by another Sonde process), each with what the desktop backend's
// log calls answer: pages by seq and by row, a filter's matches counted a bounded amount at a time and paged
// by position, a follow stream that ends when the log can grow no more. A double of the core's
// contract (src/log), not of its implementation; the filter is the double's (memory.ts).
import type { ConnectionLabel, Entry, LogBatch, MatchCount, Page, RuleGroup, SessionInfo } from "./backend";
import type { LogLength, Outcome } from "./bindings";
import { SEVERITY } from "./memoryFilter";

/** How many entries a count looks at per call, so callers are seen to call again. */
const COUNT_BUDGET = 50_000;
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

  /** The findings on connection `conn`'s frames grouped by rule, errors first (the double of
   * the core's `diagnose::group`). */
  diagnostics(conn: number): RuleGroup[] {
    const groups = new Map<string, RuleGroup>();
    for (const e of this.entries) {
      if (Number(e.conn) !== conn) continue;
      for (const f of e.findings ?? []) {
        const g = groups.get(f.rule) ?? {
          rule: f.rule,
          severity: f.severity,
          count: 0,
          detail: f.detail,
          spec: f.spec,
          seqs: [],
        };
        g.count += 1;
        if (SEVERITY.indexOf(f.severity) > SEVERITY.indexOf(g.severity)) g.severity = f.severity;
        if (g.seqs.length < 100 && g.seqs.at(-1) !== e.seq) g.seqs.push(e.seq);
        groups.set(f.rule, g);
      }
    }
    const rank = (g: RuleGroup) => SEVERITY.indexOf(g.severity);
    return [...groups.values()].sort((a, b) => rank(b) - rank(a) || a.rule.localeCompare(b.rule));
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

type Partial_ = Partial<Entry> & Pick<Entry, "kind" | "dir">;

function entryAt(started: number, seq: number, e: Partial_): Entry {
  return { seq, time: new Date(started + seq * 37).toISOString(), ms: seq * 37, conn: 1, probe: false, ...e } as Entry;
}

function message(
  dir: "in" | "out",
  msg: Record<string, unknown>,
  type: string,
  method: string,
  answers?: number,
): Partial_ {
  const id = "id" in msg ? JSON.stringify(msg.id) : undefined;
  return { kind: "message", dir, text: JSON.stringify(msg), summary: { type, method, id }, answers } as Partial_;
}

/** A `sonde tools list` run against the fixture server, recorded by the CLI. */
function cliSession(matcher: Matcher): Recorded {
  const started = Date.parse("2026-11-29T09:12:03.412Z");
  const command = "sonde-fixture --tools 3";
  const steps: Partial_[] = [
    { kind: "lifecycle", dir: "meta", detail: `spawned pid 5121 (own process group): ${command}` },
    { kind: "stderr", dir: "in", text: "fixture: ready on stdio\r\n" },
    message("out", { jsonrpc: "2.0", id: 1, method: "server/discover", params: {} }, "request", "server/discover"),
    message(
      "in",
      { jsonrpc: "2.0", id: 1, result: { supportedVersions: ["2026-07-28"] } },
      "result",
      "server/discover",
      2,
    ),
    message("out", { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }, "request", "tools/list"),
    message(
      "in",
      { jsonrpc: "2.0", id: 2, result: { tools: [{ name: "echo" }, { name: "add" }, { name: "fail" }] } },
      "result",
      "tools/list",
      4,
    ),
    { kind: "lifecycle", dir: "meta", detail: "closed stdin; waiting up to 2 s for exit" },
    { kind: "lifecycle", dir: "meta", detail: "server exited with code 0 after stdin was closed" },
    { kind: "lifecycle", dir: "meta", detail: "process group 5121 is empty; shutdown complete" },
  ];
  const log = new MemoryLog(matcher);
  steps.forEach((s, i) => log.append(entryAt(started, i, s)));
  log.ended = true;
  const info = {
    name: "2026-11-29T09-12-03.412Z-5120.jsonl",
    started: new Date(started).toISOString(),
    program: "sonde",
    client: null,
    given_name: null,
    servers: [command],
    current: false,
    pinned: false,
    // Its writer was killed: the core reads no end-of-session entry (log/format.rs words).
    why_incomplete: "it has no end-of-session entry (its writer was killed or crashed, or could not write to the end)",
  };
  return { info, log, toWrite: [], writing: false };
}

/** A `sonde proxy --name ticks` run that is still going, between a client and the server it
 * starts: it writes the server's notification every WRITE_MS once opened. */
function liveSession(matcher: Matcher): Recorded {
  const started = Date.parse("2026-11-30T08:00:00.000Z");
  const command = "npx -y @modelcontextprotocol/server-everything";
  const log = new MemoryLog(matcher);
  log.append(entryAt(started, 0, { kind: "lifecycle", dir: "meta", detail: `spawned pid 6001: ${command}` }));
  const note = (i: number) =>
    message(
      "in",
      { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: `tick ${i}` } },
      "notification",
      "notifications/message",
    );
  const toWrite = Array.from({ length: 10 }, (_, i) => entryAt(started, i + 1, note(i + 1)));
  const info = {
    name: "2026-11-30T08-00-00.000Z-6000.jsonl",
    started: new Date(started).toISOString(),
    program: "sonde",
    client: "claude-code",
    given_name: "ticks",
    servers: [command],
    current: false,
    pinned: false,
    why_incomplete: null,
  };
  return { info, log, toWrite, writing: true };
}

/** A session from before sessions had cards: its servers are not recorded. */
function oldSession(matcher: Matcher): Recorded {
  const started = Date.parse("2026-11-02T17:45:10.001Z");
  const log = new MemoryLog(matcher);
  log.append(entryAt(started, 0, { kind: "note", dir: "meta", detail: "an old session" }));
  log.ended = true;
  const info = {
    name: "2026-11-02T17-45-10.001Z-777.jsonl",
    started: new Date(started).toISOString(),
    program: null,
    client: null,
    given_name: null,
    servers: null,
    current: false,
    pinned: false,
    // Written before sessions had a format version: read as it always was, not as incomplete.
    why_incomplete: null,
  };
  return { info, log, toWrite: [], writing: false };
}

/** The recorded sessions a fresh in-memory backend offers, newest first. */
export function recordedSessions(matcher: Matcher): Recorded[] {
  return [liveSession(matcher), cliSession(matcher), oldSession(matcher)];
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
