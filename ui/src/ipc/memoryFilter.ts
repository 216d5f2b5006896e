// The in-memory backend's reading of a filter expression: the core's whole grammar
// (src/log/filter.rs) written again in TypeScript, for the UI tests and the plain browser, which
// have no core to ask. Quoted terms, case-insensitive keys, kind lists, the direction aliases,
// conn numbers, number and string ids, diag levels, unknown keys refused, free text found in the
// bytes or the detail, the chips and each one's expression without it: all as the core does
// them. A double written by hand drifts, so both sides run one table of cases,
// src/log/filter_cases.json (the core's tests in filter.rs, this one's in memoryFilter.test.ts);
// a change to the grammar changes the table, and the side that disagrees fails. Only the words
// of an error are this double's own.
import type { Entry, FilterView } from "./backend";
import type { Direction, FilterKey, Kind, Severity } from "./bindings";
import { DIAG_RULES } from "./bindings";

const KEYS: FilterKey[] = ["kind", "hide", "dir", "conn", "method", "id", "target", "diag"];
/** Severities, least first, as the core orders them. */
export const SEVERITY = ["note", "warning", "error"];
/** Every kind, in the core's order (`Kind::ALL`), which its error lists. */
const KINDS: Kind[] = [
  "message",
  "non_protocol",
  "decode_error",
  "batch",
  "truncated",
  "stderr",
  "lifecycle",
  "note",
  "http",
  "app",
];
/** `Direction::parse`: each direction's name, glyph and word. */
const DIRS = new Map<string, Direction>([
  ["out", "out"],
  [">", "out"],
  ["sent", "out"],
  ["in", "in"],
  ["<", "in"],
  ["received", "in"],
  ["meta", "meta"],
  ["*", "meta"],
]);
/** Rust's `char::is_whitespace` (Unicode White_Space), which is not quite JavaScript's `\s`. */
const SPACE = "\\t-\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const LEADING_SPACE = new RegExp(`^[${SPACE}]+`);
const A_SPACE = new RegExp(`[${SPACE}]`);
const U64_MAX = 2n ** 64n - 1n;

/** A parsed filter, the core's `Filter`: a conjunction of conditions. */
interface Filter {
  kinds: Kind[];
  hidden: Kind[];
  dir?: Direction;
  conn?: bigint;
  method?: string;
  id?: string;
  target?: string;
  diag?: Severity;
  rule?: string;
  text?: string;
}

/** The double's reading of `filter` as a predicate; a bad filter is refused as the core does. */
export function matcherOf(filter: string): (e: Entry) => boolean {
  const { view, matches } = readFilter(filter);
  if (view.error != null) throw { code: "bad_input", message: view.error };
  return matches;
}

/** What the core's `FilterView::of` shows of `expr`, and the predicate its filter is. */
export function readFilter(expr: string): { view: FilterView; matches: (e: Entry) => boolean } {
  const parsed = parse(expr);
  if (typeof parsed === "string") return { view: { chips: [], error: parsed }, matches: () => false };
  const chips = conditions(parsed).map(([key, value]) => ({ key, value, without: without(expr, key) }));
  return { view: { chips, error: null }, matches: (e) => matchesEntry(parsed, e) };
}

/** The terms of an expression: split on whitespace, except that a term starting with a double
 * quote, or a key's quoted value (`target:"a b"`), runs to the next one (or to the end), quotes
 * included. */
function terms(expr: string): string[] {
  const out: string[] = [];
  let rest = expr.replace(LEADING_SPACE, "");
  while (rest) {
    let end;
    const colon = rest.indexOf(":");
    const quotedFrom = colon >= 0 && rest[colon + 1] === '"' && !A_SPACE.test(rest.slice(0, colon)) ? colon + 1 : -1;
    if (rest.startsWith('"')) {
      const close = rest.indexOf('"', 1);
      end = close < 0 ? rest.length : close + 1;
    } else if (quotedFrom >= 0) {
      const close = rest.indexOf('"', quotedFrom + 1);
      end = close < 0 ? rest.length : close + 1;
    } else {
      const space = A_SPACE.exec(rest);
      end = space ? space.index : rest.length;
    }
    out.push(rest.slice(0, end));
    rest = rest.slice(end).replace(LEADING_SPACE, "");
  }
  return out;
}

/** ASCII letters made lower case, and nothing else (Rust's `to_ascii_lowercase`). */
const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** The key a term sets and its value; a word with no known key is all text. */
function keyOf(term: string): [FilterKey, string] {
  if (term.startsWith('"')) {
    const quoted = term.slice(1);
    return ["text", quoted.endsWith('"') ? quoted.slice(0, -1) : quoted];
  }
  const colon = term.indexOf(":");
  if (colon < 0) return ["text", term];
  const key = KEYS.find((k) => k === asciiLower(term.slice(0, colon)));
  return key ? [key, term.slice(colon + 1)] : ["text", term];
}

/** The word of a `word:value` term that looks like a key but is none of them. */
function unknownKey(term: string): string | undefined {
  const colon = term.indexOf(":");
  if (colon < 0) return undefined;
  const [word, value] = [term.slice(0, colon), term.slice(colon + 1)];
  return /^[A-Za-z]+$/.test(word) && value !== "" && !value.startsWith("/") ? word : undefined;
}

/** The core's `Filter::parse`: the filter, or what is wrong with it. */
function parse(expr: string): Filter | string {
  const f: Filter = { kinds: [], hidden: [] };
  const words: string[] = [];
  for (const term of terms(expr)) {
    const [key, value] = keyOf(term);
    const unknown = key === "text" && !term.startsWith('"') ? unknownKey(term) : undefined;
    if (unknown !== undefined)
      return `unknown key "${unknown}"; keys are kind, hide, dir, conn, method, id, target and diag (put text with a colon in double quotes)`;
    switch (key) {
      case "kind":
      case "hide":
        for (const k of value.split(",")) {
          const kind = KINDS.find((name) => name === asciiLower(k));
          if (kind === undefined) return `unknown kind "${k}"; kinds are ${KINDS.join(", ")}`;
          (key === "kind" ? f.kinds : f.hidden).push(kind);
        }
        break;
      case "dir":
        f.dir = DIRS.get(asciiLower(value));
        if (f.dir === undefined) return `unknown direction "${value}"; use in, out or meta`;
        break;
      case "conn":
        // As Rust reads a u64: digits, an optional leading `+`, at most 2^64 - 1.
        f.conn = /^\+?[0-9]+$/.test(value) ? BigInt(value.replace("+", "")) : undefined;
        if (f.conn === undefined || f.conn > U64_MAX) return `conn:${value} is not a number`;
        break;
      case "method":
      case "id":
        // With nothing after them they would match nothing at all, silently.
        if (value === "") return `${term} needs a value`;
        f[key] = value;
        break;
      case "target": {
        const unquoted = value.startsWith('"')
          ? value.slice(1, value.endsWith('"') && value.length > 1 ? -1 : undefined)
          : value;
        if (unquoted === "") return `${term} needs a value`;
        f.target = unquoted;
        break;
      }
      case "diag": {
        const level = asciiLower(value);
        const rule = (DIAG_RULES as readonly string[]).includes(level) ? level : undefined;
        f.rule = rule;
        f.diag = rule ? undefined : level === "any" ? "note" : (SEVERITY as Severity[]).find((s) => s === level);
        if (f.diag === undefined && rule === undefined)
          return `unknown severity or rule "${value}"; use error, warning, note, any or a rule: ${DIAG_RULES.join(", ")}`;
        break;
      }
      case "text":
        words.push(value);
    }
  }
  if (words.length) f.text = words.join(" ").toLowerCase();
  return f;
}

/** Each condition with its value as text, in the order chips show them. */
function conditions(f: Filter): [FilterKey, string][] {
  const values: [FilterKey, string | undefined][] = [
    ["kind", f.kinds.length ? f.kinds.join(",") : undefined],
    ["hide", f.hidden.length ? f.hidden.join(",") : undefined],
    ["dir", f.dir],
    ["conn", f.conn?.toString()],
    ["method", f.method],
    ["id", f.id],
    ["target", f.target],
    ["diag", f.diag ?? f.rule],
    ["text", f.text],
  ];
  return values.flatMap(([key, value]) => (value === undefined ? [] : [[key, value]]));
}

/** `expr` with every term of `key` removed. */
const without = (expr: string, key: FilterKey) =>
  terms(expr)
    .filter((term) => keyOf(term)[0] !== key)
    .join(" ");

function matchesEntry(f: Filter, e: Entry): boolean {
  const worst = Math.max(-1, ...(e.findings ?? []).map((finding) => SEVERITY.indexOf(finding.severity)));
  return (
    (f.kinds.length === 0 || f.kinds.includes(e.kind)) &&
    !f.hidden.includes(e.kind) &&
    (f.dir === undefined || f.dir === e.dir) &&
    (f.conn === undefined || f.conn === BigInt(e.conn)) &&
    (f.method === undefined || (e.summary?.method != null && asciiLower(e.summary.method) === asciiLower(f.method))) &&
    (f.id === undefined || idMatches(f.id, e.summary?.id)) &&
    (f.target === undefined || (e.summary?.target != null && asciiLower(e.summary.target) === asciiLower(f.target))) &&
    (f.diag === undefined || worst >= SEVERITY.indexOf(f.diag)) &&
    (f.rule === undefined || (e.findings ?? []).some((finding) => finding.rule === f.rule)) &&
    textMatches(f.text, e)
  );
}

/** `id:3` is the number 3 or the string "3"; `id:"3"` only the string. */
function idMatches(wanted: string, recorded: string | undefined): boolean {
  if (recorded === undefined) return false;
  const unquoted = recorded.length >= 2 && recorded.startsWith('"') && recorded.endsWith('"');
  return wanted === recorded || (unquoted && recorded.slice(1, -1) === wanted);
}

/** The phrase, in the bytes (decoded lossily when they are kept as base64) or in the detail,
 * each on its own. An ASCII phrase ignores ASCII case only, as the core's scan of the file does. */
function textMatches(needle: string | undefined, e: Entry): boolean {
  if (needle === undefined) return true;
  const ascii = /^[\0-\x7f]*$/.test(needle);
  const found = (s: string) => (ascii ? asciiLower(s) : s.toLowerCase()).includes(needle);
  const bytes = e.text ?? (e.base64 === undefined ? undefined : decodeLossily(e.base64));
  return (bytes !== undefined && found(bytes)) || (e.detail !== undefined && found(e.detail));
}

function decodeLossily(base64: string): string | undefined {
  try {
    return new TextDecoder().decode(Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
}
