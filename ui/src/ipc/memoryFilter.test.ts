import { describe, expect, it } from "vitest";
// The core's table of the filter grammar, which its own tests run too (src/log/filter.rs): the
// double matches what the core's chips match, and reads plain words as the core does.
import tableText from "../../../src/log/filter_cases.json?raw";
import type { Entry } from "./backend";
import type { Direction, FilterKey, Kind, Severity } from "./bindings";
import { chipMatches, readFilter } from "./memoryFilter";

/** An entry of the table: what a filter can see of one. */
interface TableEntry {
  seq: number;
  conn: number;
  kind: Kind;
  dir: Direction;
  method?: string;
  /** JSON text, as the summary keeps it. */
  id?: string;
  /** What a request names (a tool, prompt or resource). */
  target?: string;
  /** The severity of the entry's worst finding. */
  diag?: Severity;
  /** Its rule (`table` when not given). */
  rule?: string;
  text?: string;
  base64?: string;
  detail?: string;
}

/** A filter, and either that it is refused or its chips (key, value, without) and matches. */
type TableCase =
  { filter: string; error: true } | { filter: string; chips: [FilterKey, string, string][]; matches: number[] };

const table: { entries: TableEntry[]; cases: TableCase[] } = JSON.parse(tableText);

function entryOf({ seq, conn, kind, dir, method, id, target, diag, rule, text, base64, detail }: TableEntry): Entry {
  const entry: Entry = { seq, time: "", ms: 0, conn, kind, dir, text, base64, detail };
  if (method !== undefined || id !== undefined) entry.summary = { type: "request", method, id, target };
  if (diag !== undefined)
    entry.findings = [{ rule: rule ?? "table", severity: diag, detail: "a finding", spec: "the table" }];
  return entry;
}

describe("the in-memory double's filters", () => {
  const entries = table.entries.map(entryOf);
  const read = table.cases.filter((c): c is Extract<TableCase, { chips: unknown }> => !("error" in c));

  it("has the core's table to run", () => {
    expect(read.length).toBeGreaterThan(50);
    expect(entries.length).toBeGreaterThan(10);
  });

  it.each(read.map((c) => [JSON.stringify(c.filter), c] as const))(
    "matches what the core's chips for %s match",
    (_, c) => {
      const matches = (e: Entry) => c.chips.every(([key, value]) => chipMatches({ key, value }, e));
      expect(entries.filter(matches).map((e) => e.seq)).toEqual(c.matches);
    },
  );

  it.each(table.cases.filter((c) => !/[:"]/.test(c.filter)).map((c) => [JSON.stringify(c.filter), c] as const))(
    "reads plain words %s as the core does",
    (_, c) => {
      const { view } = readFilter(c.filter);
      expect(view.error).toBeNull();
      expect(view.chips.map((chip) => [chip.key, chip.value, chip.without])).toEqual("chips" in c ? c.chips : []);
    },
  );

  it("refuses an expression with a key the core was not asked about, saying so", () => {
    expect(readFilter("kind:batch dir:in").view.error).toContain("recorded from the core");
    expect(readFilter("kind:nonsense").view.error).toContain("unknown kind");
  });
});
