// The in-memory backend's reading of a filter expression: a double of the core's grammar
// (src/log/filter.rs) for the terms the UI tests type, with its chips and their removal.
import type { Entry, FilterView } from "./backend";
import type { FilterKey, Kind } from "./bindings";

// This double's reading of a filter, enough for the UI tests and the preview and no more: the
// real grammar is the core's (src/log/filter.rs), with its aliases, kind lists, id types and
// messages. Here `key:value` terms split on whitespace are compared with an entry's field (a
// later term of a key replaces an earlier one), the other words are one phrase of text, and the
// only error is an unknown kind.
const KEYS: FilterKey[] = ["kind", "dir", "conn", "method", "id", "diag"];
/** Severities, least first, as the core orders them. */
export const SEVERITY = ["note", "warning", "error"];
const KINDS: Record<Kind, true> = {
  message: true,
  non_protocol: true,
  decode_error: true,
  batch: true,
  truncated: true,
  stderr: true,
  lifecycle: true,
  note: true,
  http: true,
};
const FIELDS: Record<FilterKey, (e: Entry, value: string) => boolean> = {
  kind: (e, v) => e.kind === v,
  dir: (e, v) => e.dir === v,
  conn: (e, v) => String(e.conn) === v,
  method: (e, v) => e.summary?.method === v,
  id: (e, v) => e.summary?.id === v,
  // At least that severe, as the core reads it; `any` is any finding.
  diag: (e, v) => (e.findings ?? []).some((f) => SEVERITY.indexOf(f.severity) >= Math.max(0, SEVERITY.indexOf(v))),
  text: (e, v) => [e.text, e.detail].some((s) => s?.toLowerCase().includes(v)),
};

/** The double's reading of `filter` as a predicate; a bad filter is refused as the core does. */
export function matcherOf(filter: string): (e: Entry) => boolean {
  const { view, matches } = readFilter(filter);
  if (view.error != null) throw { code: "bad_input", message: view.error };
  return matches;
}

export function readFilter(expr: string): { view: FilterView; matches: (e: Entry) => boolean } {
  const terms = expr.split(/\s+/).filter(Boolean);
  const keyOf = (term: string): FilterKey => KEYS.find((k) => term.startsWith(`${k}:`)) ?? "text";
  const values = new Map<FilterKey, string>();
  for (const term of terms) if (keyOf(term) !== "text") values.set(keyOf(term), term.slice(term.indexOf(":") + 1));
  const words = terms.filter((t) => keyOf(t) === "text");
  if (words.length) values.set("text", words.join(" ").toLowerCase());
  const kind = values.get("kind");
  if (kind !== undefined && !Object.hasOwn(KINDS, kind))
    return { view: { chips: [], error: `unknown kind "${kind}"` }, matches: () => false };
  const chips = [...KEYS, "text" as const].flatMap((key) => {
    const value = values.get(key);
    return value === undefined ? [] : [{ key, value, without: terms.filter((t) => keyOf(t) !== key).join(" ") }];
  });
  return { view: { chips, error: null }, matches: (e) => [...values].every(([key, value]) => FIELDS[key](e, value)) };
}
