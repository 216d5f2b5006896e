import { describe, expect, it } from "vitest";
import { expiryText, scopesOf, spanText } from "./credentials";

describe("credentials in words", () => {
  it("says a span rounded down, in the largest unit that reads well", () => {
    const table: [number, string][] = [
      [0, "0 s"],
      [59.9, "59 s"],
      [60, "1 min"],
      [3599, "59 min"],
      [3600, "1 h"],
      [5400, "1 h 30 min"],
      [47 * 3600 + 59 * 60, "47 h 59 min"],
      [48 * 3600, "2 days"],
      [30 * 86400, "30 days"],
    ];
    for (const [seconds, words] of table) expect(spanText(seconds), String(seconds)).toBe(words);
  });

  it("says when a token expires, or that it expired, or that no expiry was given", () => {
    const now = 1_800_000_000;
    expect(expiryText(now + 3600, now)).toBe("expires in 1 h");
    expect(expiryText(now + 90, now)).toBe("expires in 1 min");
    expect(expiryText(now, now)).toBe("expired just now");
    expect(expiryText(now - 30, now)).toBe("expired just now");
    expect(expiryText(now - 7200, now)).toBe("expired 2 h ago");
    expect(expiryText(null, now)).toBe("no expiry given");
  });

  it("lists a token's scopes once each", () => {
    expect(scopesOf("mcp:tools  mcp:resources mcp:tools")).toEqual(["mcp:tools", "mcp:resources"]);
    expect(scopesOf(null)).toEqual([]);
    expect(scopesOf(" ")).toEqual([]);
  });
});
