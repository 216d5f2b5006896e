// The in-memory double stays a double: it keeps only what a browser test drives, and takes every
// rule from the core (recorded.json, the bindings' constants), so it has no room to grow into a
// second implementation. Its budget is counted here, tests included.
import { describe, expect, it } from "vitest";

/** The most lines `memory*.ts` may hold together. */
const BUDGET = 1200;

/** Every `memory*.ts` of this folder, as text, by path. */
const FILES = import.meta.glob<string>("./memory*.ts", { query: "?raw", import: "default", eager: true });

describe("the in-memory double", () => {
  it(`stays within ${BUDGET} lines`, () => {
    const lines = Object.values(FILES).map((text) => text.split("\n").length - 1);
    expect(Object.keys(FILES)).toContain("./memory.ts");
    expect(lines.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(BUDGET);
  });
});
