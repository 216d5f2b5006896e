// The log filter grammar, the same as the core's (src/log/filter.rs): `key:value` terms for
// kind, dir, conn, method and id, and free words matched case-insensitively in the bytes and
// the detail. The UI parses it to show chips and to say what is wrong before asking the core.
import type { Entry, Kind } from "../ipc/bindings";

export const KINDS = ["message", "non_protocol", "decode_error", "batch", "truncated", "stderr", "lifecycle", "note", "http"] as const;
// Fails to compile when the core grows a kind this list lacks.
const everyKind: Exclude<Kind, (typeof KINDS)[number]> extends never ? true : false = true;
void everyKind;

export interface Filter {
  kinds: string[];
  dir?: "in" | "out" | "meta";
  conn?: number;
  method?: string;
  id?: string;
  text?: string;
}

export interface Chip {
  key: string;
  value: string;
}

const DIRS: Record<string, Filter["dir"]> = { in: "in", "<": "in", received: "in", out: "out", ">": "out", sent: "out", meta: "meta", "*": "meta" };

/** Parses a filter expression, or says what is wrong with it. */
export function parseFilter(expr: string): { filter: Filter } | { error: string } {
  const filter: Filter = { kinds: [] };
  const words: string[] = [];
  for (const term of expr.split(/\s+/).filter(Boolean)) {
    const at = term.indexOf(":");
    if (at < 0) {
      words.push(term);
      continue;
    }
    const key = term.slice(0, at);
    const value = term.slice(at + 1);
    switch (key) {
      case "kind":
        for (const k of value.split(",")) {
          if (!(KINDS as readonly string[]).includes(k)) return { error: `unknown kind "${k}"; kinds are ${KINDS.join(", ")}` };
          filter.kinds.push(k);
        }
        break;
      case "dir":
        if (!DIRS[value]) return { error: `unknown direction "${value}"; use in, out or meta` };
        filter.dir = DIRS[value];
        break;
      case "conn":
        if (!/^\d+$/.test(value)) return { error: `conn:${value} is not a number` };
        filter.conn = Number(value);
        break;
      case "method":
        filter.method = value;
        break;
      case "id":
        filter.id = value;
        break;
      default:
        words.push(term);
    }
  }
  if (words.length) filter.text = words.join(" ").toLowerCase();
  return { filter };
}

/** The chips a parsed filter shows, one per condition. */
export function chips(f: Filter): Chip[] {
  const out: Chip[] = [];
  if (f.kinds.length) out.push({ key: "kind", value: f.kinds.join(",") });
  if (f.dir) out.push({ key: "dir", value: f.dir });
  if (f.conn !== undefined) out.push({ key: "conn", value: String(f.conn) });
  if (f.method) out.push({ key: "method", value: f.method });
  if (f.id) out.push({ key: "id", value: f.id });
  if (f.text) out.push({ key: "text", value: f.text });
  return out;
}

/** The expression with one chip removed. */
export function withoutChip(expr: string, chip: Chip): string {
  const parsed = parseFilter(expr);
  if ("error" in parsed) return expr;
  const f = parsed.filter;
  const rest = chips(f).filter((c) => !(c.key === chip.key && c.value === chip.value));
  return rest.map((c) => (c.key === "text" ? c.value : `${c.key}:${c.value}`)).join(" ");
}

function idMatches(wanted: string, recorded: string): boolean {
  return wanted === recorded || (recorded.startsWith('"') && recorded.endsWith('"') && recorded.slice(1, -1) === wanted);
}

/** Whether an entry matches (the in-memory backend filters with this). */
export function matches(f: Filter, e: Entry): boolean {
  if (f.kinds.length && !f.kinds.includes(e.kind)) return false;
  if (f.dir && f.dir !== e.dir) return false;
  if (f.conn !== undefined && f.conn !== Number(e.conn)) return false;
  if (f.method && e.summary?.method !== f.method) return false;
  if (f.id && !(e.summary?.id && idMatches(f.id, e.summary.id))) return false;
  if (f.text) {
    const hay = [e.text, e.detail, e.base64].filter(Boolean).join("\n").toLowerCase();
    if (!hay.includes(f.text)) return false;
  }
  return true;
}
