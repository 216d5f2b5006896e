import { describe, expect, it } from "vitest";
import { fieldsOf, fromArguments, toArguments } from "./schema";

const schema = { type: "object", properties: { text: { type: "string" }, n: { type: "integer" }, on: { type: "boolean" }, tags: { type: "array" }, mode: { enum: ["a", "b"] } }, required: ["text"] };

describe("the schema form", () => {
  it("derives fields from the inputSchema", () => {
    expect(fieldsOf(schema).map((f) => [f.name, f.kind, f.required])).toEqual([
      ["text", "string", true], ["n", "integer", false], ["on", "boolean", false], ["tags", "json", false], ["mode", "enum", false],
    ]);
  });
  it("round-trips form values and JSON arguments", () => {
    const fields = fieldsOf(schema);
    const args = { text: "hi", n: 3, on: true, tags: ["x", 1], mode: "b" };
    const values = fromArguments(fields, args);
    expect(toArguments(fields, values)).toEqual({ args });
  });
  it("says which field is wrong", () => {
    const fields = fieldsOf(schema);
    expect(toArguments(fields, { n: "1" })).toEqual({ error: "text is required" });
    expect(toArguments(fields, { text: "x", n: "1.5" })).toEqual({ error: "n must be an integer" });
    expect(toArguments(fields, { text: "x", tags: "[" })).toEqual({ error: "tags is not valid JSON" });
  });
});
