// The in-memory double stays a double: it keeps only what a browser test drives, and takes every
// rule from the core (recorded.json, the bindings' constants), so it has no room to grow into a
// second implementation. Its budget is counted here, tests included.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/** The most lines `memory*.ts` may hold together. */
const BUDGET = 1200;

describe("the in-memory double", () => {
  it(`stays within ${BUDGET} lines`, () => {
    const files = readdirSync(__dirname).filter((f) => /^memory.*\.ts$/.test(f));
    const lines = files.map((f) => readFileSync(join(__dirname, f), "utf8").split("\n").length - 1);
    expect(files.length).toBeGreaterThan(1);
    expect(lines.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(BUDGET);
  });
});
