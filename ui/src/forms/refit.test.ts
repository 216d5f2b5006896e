import { describe, expect, it } from "vitest";
import { refit } from "./refit";

const schema = (properties: Record<string, unknown>) => ({ type: "object", properties });

describe("refit", () => {
  it("keeps what the new schema takes and sets aside a removed argument and a value of a changed type", () => {
    const next = schema({ a: { type: "number" }, b: { type: "string" } });
    const { kept, aside } = refit(next, { a: 2, b: 3, c: "x" });
    expect(kept).toEqual({ a: 2 });
    expect(aside).toEqual([
      { path: "b", value: 3 },
      { path: "c", value: "x" },
    ]);
  });

  it("keeps everything when the schema still takes it, and an argument newly required is not a value set aside", () => {
    const next = { ...schema({ a: { type: "number" }, b: { type: "number" } }), required: ["a", "b"] };
    expect(refit(next, { a: 2 })).toEqual({ kept: { a: 2 }, aside: [] });
  });

  it("follows a $ref to the definition", () => {
    const next = { ...schema({ to: { $ref: "#/$defs/city" } }), $defs: { city: { enum: ["Oslo", "Lima"] } } };
    expect(refit(next, { to: "Oslo" }).aside).toEqual([]);
    expect(refit(next, { to: "Paris" }).aside).toEqual([{ path: "to", value: "Paris" }]);
  });
});
