import { describe, expect, it } from "vitest";
import {
  formatDuration,
  formatSize,
  formatStarted,
  formatTimeOfDay,
  sessionLabel,
  sessionTitle,
  showBytes,
  summaryOf,
} from "./format";
import type { Entry } from "../ipc/bindings";

describe("formatting", () => {
  it("shows invalid UTF-8 as escapes and keeps the rest", () => {
    expect(showBytes(new Uint8Array([0x61, 0xff, 0xfe, 0x62, 0xc3, 0xa9]))).toBe("a\\xff\\xfebé");
  });
  it("escapes every byte of a sequence that is not well formed, and keeps the ones that are", () => {
    const bytes = (...b: number[]) => new Uint8Array(b);
    // A truncated sequence, then one cut short by the end.
    expect(showBytes(bytes(0xe2, 0x82, 0x61, 0xe2, 0x82))).toBe("\\xe2\\x82a\\xe2\\x82");
    // Overlong forms, a surrogate, a code point above U+10FFFF, a lone continuation byte.
    expect(showBytes(bytes(0xc0, 0x80, 0xe0, 0x80, 0x80))).toBe("\\xc0\\x80\\xe0\\x80\\x80");
    expect(showBytes(bytes(0xed, 0xa0, 0x80, 0xf4, 0x90, 0x80, 0x80, 0x80))).toBe(
      "\\xed\\xa0\\x80\\xf4\\x90\\x80\\x80\\x80",
    );
    // The edges of each length, a byte-order mark kept as it is, and the empty input.
    const valid = "\u0000\u007f\u0080\u07ff\u0800\ud7ff\ue000\uffff\u{10000}\u{10ffff}😀";
    expect(showBytes(new TextEncoder().encode(valid))).toBe(valid);
    expect(showBytes(bytes(0xef, 0xbb, 0xbf, 0x41))).toBe("\ufeffA");
    expect(showBytes(bytes())).toBe("");
  });
  it("shows a megabyte of invalid bytes in one pass", () => {
    // Retrying the decode once per invalid byte would take billions of steps here.
    const n = 1 << 20;
    const shown = showBytes(new Uint8Array(n).fill(0xff));
    expect(shown.length).toBe(4 * n);
    expect(shown).toBe("\\xff".repeat(n));
    // Valid runs between invalid bytes, many times over, decode the same as alone.
    const mixed = new Uint8Array(3 * n);
    for (let i = 0; i < n; i++) mixed.set([0xc3, 0xa9, 0xfe], 3 * i);
    expect(showBytes(mixed)).toBe("é\\xfe".repeat(n));
  });
  it("formats durations, times of day and sizes as the contracts write them", () => {
    // (milliseconds, words): 0.4 ms, 12 ms, 1.25 s, 2 min 5 s.
    const durations: [number, string][] = [
      [0.4, "0.4 ms"],
      [9.94, "9.9 ms"],
      [12.34, "12 ms"],
      [999.4, "999 ms"],
      [999.6, "1.00 s"],
      [1250, "1.25 s"],
      [5006.2, "5.01 s"],
      [59_994, "59.99 s"],
      [59_996, "1 min 0 s"],
      [125_000, "2 min 5 s"],
      [3_600_000 + 125_000, "1 h 2 min"],
    ];
    for (const [ms, words] of durations) expect(formatDuration(ms), `${ms}`).toBe(words);
    const at = new Date(2026, 11, 2, 3, 57, 2, 5);
    expect(formatTimeOfDay(at.toISOString())).toBe("03:57:02.005");
    expect(formatTimeOfDay("not a time")).toBe("not a time");
    expect(formatSize(2048)).toBe("2.0 KiB");
  });
  it("summarises messages by method and id", () => {
    const e = { summary: { type: "request", method: "tools/call", id: "3" } } as unknown as Entry;
    expect(summaryOf(e)).toBe("tools/call #3");
    // A long tool name is cut in the row, never the id after it; whole elsewhere.
    const long = "get-annotated-message-with-a-very-long-name";
    const named = { summary: { type: "request", method: "tools/call", target: long, id: "12" } } as unknown as Entry;
    expect(summaryOf(named, true)).toBe("tools/call #12 get-annotated-message-w…");
    expect(summaryOf(named)).toBe(`tools/call ${long} #12`);
  });
  it("names the tool, prompt or resource a request or its reply is about", () => {
    const call = { summary: { type: "request", method: "tools/call", id: "7", target: "get-sum" } } as unknown as Entry;
    expect(summaryOf(call)).toBe("tools/call get-sum #7");
    const reply = {
      summary: { type: "result", method: "resources/read", id: "8", target: "file:///a" },
    } as unknown as Entry;
    expect(summaryOf(reply)).toBe("resources/read file:///a #8 result");
  });
  it("summarises stderr without its colour codes, twice in a row", () => {
    const e = { kind: "stderr", text: "\x1b[1;31merror\x1b[0m:\n  disk   full" } as unknown as Entry;
    expect(summaryOf(e)).toBe("error: disk full");
    expect(summaryOf(e)).toBe("error: disk full");
  });
});

describe("a session's name for people", () => {
  const started = "2026-11-30T08:00:00.000Z";
  const at = formatStarted(started);
  it("puts the name the person gave it first, quoted, then when it started", () => {
    const named = { given_name: "checkout", started };
    expect(sessionTitle(named)).toBe(`"checkout" · session of ${at}`);
    expect(sessionLabel(named)).toBe(`"checkout" (the session of ${at})`);
  });
  it("is when it started for a session given no name", () => {
    const unnamed = { given_name: null, started };
    expect(sessionTitle(unnamed)).toBe(`Session of ${at}`);
    expect(sessionLabel(unnamed)).toBe(`the session of ${at}`);
  });
});
