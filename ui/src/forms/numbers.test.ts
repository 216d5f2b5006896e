import { describe, expect, it } from "vitest";
import { numberOf, numberProblem } from "./numbers";
import { parseLeaf, problemsOf, toJson } from "./schema";

const sum = {
  type: "object",
  properties: { a: { type: "number" }, b: { type: "number" }, n: { type: "integer" } },
  required: ["a", "b"],
};

/** What a number field's text becomes in the draft, and what is sent or said of it. */
const typed = (kind: "number" | "integer", text: string) => {
  const value = { a: 1, b: 2, [kind === "number" ? "a" : "n"]: parseLeaf(kind, text) };
  return { sent: toJson(value), problems: problemsOf(sum, value).map((p) => p.message) };
};

describe("a number field's text", () => {
  it("is refused, not taken as 0, when it is blank or a space", () => {
    expect(parseLeaf("number", " ")).toBe(" ");
    expect(typed("number", " ").problems).toEqual(["a is blank: type a number, or empty the field to leave it out"]);
    expect(typed("number", "   ").problems).toHaveLength(1);
    // An empty field is no value at all: a required one says so.
    expect(problemsOf(sum, { a: parseLeaf("number", ""), b: 2 }).map((p) => p.message)).toEqual(["a is required"]);
  });

  it("is refused, not read as 16, when it is hexadecimal (and octal and binary)", () => {
    expect(parseLeaf("number", "0x10")).toBe("0x10");
    expect(typed("number", "0x10").problems).toEqual([
      'a is "0x10", not a JSON number: write it in decimal digits (16)',
    ]);
    expect(typed("integer", "0x10").problems).toEqual([
      'n is "0x10", not a JSON number: write it in decimal digits (16)',
    ]);
    expect(numberProblem("number", "-0o17")).toContain("(-15)");
    expect(numberProblem("number", "0b12")).toBe('is "0b12", not a JSON number: write it in decimal digits');
  });

  it("follows JSON's number grammar where Number() is lenient", () => {
    for (const text of ["+5", ".5", "5.", "007", "1_000", "Infinity", "NaN", "1e", "--1", "1 2", "0x"])
      expect(numberOf("number", text), text).toBeNull();
    expect(numberProblem("number", "1,5")).toBe('is "1,5", not a JSON number: use a point for decimals (1.5)');
    expect(numberProblem("number", "1e400")).toBe('is "1e400", too large for a JSON number');
    for (const [text, n] of [
      ["0", 0],
      ["-12.5", -12.5],
      ["3e8", 3e8],
      ["1E-3", 0.001],
      [" 42 ", 42],
    ] as const)
      expect(numberOf("number", text), text).toBe(n);
  });

  it("takes only decimal digits in an integer field, and refuses what would not be sent exactly", () => {
    expect(numberOf("integer", "-12")).toBe(-12);
    expect(numberProblem("integer", "1.5")).toBe("must be a whole number, not 1.5");
    expect(numberProblem("integer", "1e3")).toBe('is "1e3", not written as an integer: write it in digits only (1000)');
    expect(numberOf("integer", "9007199254740993")).toBeNull();
    expect(numberProblem("integer", "9007199254740993")).toBe(
      'is "9007199254740993", beyond ±9007199254740991: it would not be sent exactly',
    );
    expect(typed("integer", "7").problems).toEqual([]);
    expect(typed("integer", "7").sent).toEqual({ a: 1, b: 2, n: 7 });
  });

  it("says so when the raw JSON held a number as text", () => {
    expect(problemsOf(sum, { a: "5", b: 2 }).map((p) => p.message)).toEqual([
      'a holds the text "5", not a number (quoted in the raw JSON): type it again here',
    ]);
    expect(problemsOf(sum, { a: true, b: 2 }).map((p) => p.message)).toEqual(["a must be a number, not true"]);
  });
});
