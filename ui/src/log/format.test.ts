import { describe, expect, it } from "vitest";
import { formatMs, formatSize, showBytes, summaryOf } from "./format";
import type { Entry } from "../ipc/bindings";

describe("formatting", () => {
  it("shows invalid UTF-8 as escapes and keeps the rest", () => {
    expect(showBytes(new Uint8Array([0x61, 0xff, 0xfe, 0x62, 0xc3, 0xa9]))).toBe("a\\xff\\xfebé");
  });
  it("formats times and sizes", () => {
    expect(formatMs(12.34)).toBe("12.3 ms");
    expect(formatMs(12345)).toBe("12.345 s");
    expect(formatSize(2048)).toBe("2.0 KiB");
  });
  it("summarises messages by method and id", () => {
    const e = { summary: { type: "request", method: "tools/call", id: "3" } } as unknown as Entry;
    expect(summaryOf(e)).toBe("tools/call #3");
  });
  it("summarises stderr without its colour codes, twice in a row", () => {
    const e = { kind: "stderr", text: "\x1b[1;31merror\x1b[0m:\n  disk   full" } as unknown as Entry;
    expect(summaryOf(e)).toBe("error: disk full");
    expect(summaryOf(e)).toBe("error: disk full");
  });
});
