import { describe, expect, it } from "vitest";
import { chips, matches, parseFilter, withoutChip } from "./filter";
import type { Entry } from "../ipc/bindings";

const entry = (over: Partial<Entry>): Entry => ({ seq: 0, time: "", ms: 0, conn: 1, kind: "message", dir: "in", probe: false, ...over }) as Entry;

describe("the filter grammar", () => {
  it("parses every key and keeps the rest as text", () => {
    const r = parseFilter("kind:stderr,lifecycle dir:in method:tools/call id:7 conn:2 Hello World");
    expect("filter" in r && r.filter).toEqual({ kinds: ["stderr", "lifecycle"], dir: "in", method: "tools/call", id: "7", conn: 2, text: "hello world" });
  });
  it("explains what is wrong", () => {
    expect(parseFilter("kind:frames")).toEqual({ error: expect.stringContaining("kinds are message") });
    expect(parseFilter("dir:up")).toEqual({ error: expect.stringContaining("in, out or meta") });
  });
  it("turns into chips and loses one chip at a time", () => {
    const r = parseFilter("method:tools/call error");
    if (!("filter" in r)) throw new Error("parse");
    expect(chips(r.filter)).toEqual([{ key: "method", value: "tools/call" }, { key: "text", value: "error" }]);
    expect(withoutChip("method:tools/call error", { key: "method", value: "tools/call" })).toBe("error");
  });
  it("matches ids with their JSON type", () => {
    const r = parseFilter('id:"7"');
    if (!("filter" in r)) throw new Error("parse");
    expect(matches(r.filter, entry({ summary: { type: "request", id: '"7"' } as Entry["summary"] }))).toBe(true);
    expect(matches(r.filter, entry({ summary: { type: "request", id: "7" } as Entry["summary"] }))).toBe(false);
  });
});
