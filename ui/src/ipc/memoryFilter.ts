// The in-memory backend's filters. The grammar is the core's alone (src/log/filter.rs): how it
// reads each expression the double offers (its chips, or its error) is recorded from the core
// (recorded.json, by src-tauri/tests/recorded.rs). An expression of plain words is free text,
// lower-cased, as the table of cases shows the core reads it; any other the double was not given
// is refused, saying so. What the double keeps is how each chip matches an entry, checked against
// the core's table of cases (src/log/filter_cases.json) in memoryFilter.test.ts.
import type { Entry, FilterChip, FilterView } from "./backend";
import { SEVERITIES } from "./bindings";
import recorded from "./recorded.json";

const VIEWS = recorded.filters as Record<string, FilterView>;

/** The double's reading of `filter` as a predicate; a bad filter is refused as the core does. */
export function matcherOf(filter: string): (e: Entry) => boolean {
  const { view, matches } = readFilter(filter);
  if (view.error != null) throw { code: "bad_input", message: view.error };
  return matches;
}

/** What the core's `FilterView::of` shows of `expr`, and the predicate its chips make. */
export function readFilter(expr: string): { view: FilterView; matches: (e: Entry) => boolean } {
  const view = VIEWS[expr] ?? plainWords(expr);
  return { view, matches: (e) => view.error == null && view.chips.every((chip) => chipMatches(chip, e)) };
}

/** An expression the core was not asked about: free text when it is only words. */
function plainWords(expr: string): FilterView {
  const words = expr.split(/\s+/).filter(Boolean);
  if (words.some((w) => w.includes(":") || w.includes('"')))
    return {
      chips: [],
      error: `the browser preview reads only the filters recorded from the core and plain words; the Sonde app reads "${expr}"`,
    };
  const text = words.join(" ").toLowerCase();
  return { chips: text ? [{ key: "text", value: text, without: "" }] : [], error: null };
}

/** ASCII letters made lower case, and nothing else (Rust's `to_ascii_lowercase`). */
const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
const rank = (severity: string) => (SEVERITIES as readonly string[]).indexOf(severity);

/** Whether entry `e` meets one condition, as the core's `matches_row` and `matches_text` decide. */
export function chipMatches({ key, value }: Pick<FilterChip, "key" | "value">, e: Entry): boolean {
  const same = (a: string | null | undefined) => a != null && asciiLower(a) === asciiLower(value);
  switch (key) {
    case "kind":
      return value.split(",").includes(e.kind);
    case "hide":
      return !value.split(",").includes(e.kind);
    case "dir":
      return e.dir === value;
    case "conn":
      return String(e.conn) === value;
    case "method":
      return same(e.summary?.method);
    case "target":
      return same(e.summary?.target);
    case "id": {
      // `id:3` is the number 3 or the string "3"; `id:"3"` only the string.
      const id = e.summary?.id;
      return (
        id != null &&
        (id === value || (id.length >= 2 && id.startsWith('"') && id.endsWith('"') && id.slice(1, -1) === value))
      );
    }
    case "diag": {
      const findings = e.findings ?? [];
      if (rank(value) < 0) return findings.some((f) => f.rule === value);
      return findings.some((f) => rank(f.severity) >= rank(value));
    }
    case "text":
      return textMatches(value, e);
  }
}

/** The phrase, in the bytes (decoded lossily when they are kept as base64) or in the detail,
 * each on its own. An ASCII phrase ignores ASCII case only, as the core's scan of the file does. */
function textMatches(needle: string, e: Entry): boolean {
  const ascii = /^[\0-\x7f]*$/.test(needle);
  const found = (s: string) => (ascii ? asciiLower(s) : s.toLowerCase()).includes(needle);
  const bytes = e.text ?? (e.base64 == null ? undefined : decodeLossily(e.base64));
  return (bytes != null && found(bytes)) || (e.detail != null && found(e.detail));
}

function decodeLossily(base64: string): string | undefined {
  try {
    return new TextDecoder().decode(Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
}
