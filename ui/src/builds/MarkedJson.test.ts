import { describe, expect, it } from "vitest";
import { jsonLines } from "./MarkedJson";
import { tally } from "./DiffDialog";
import type { JsonValue, Placed } from "../ipc";

describe("jsonLines", () => {
  it("marks the value at the core's steps and everything under it, nothing else", () => {
    const tool = { name: "add", inputSchema: { properties: { a: { type: "integer" } }, required: ["a"] } };
    const lines = jsonLines(tool, [["inputSchema", "properties", "a"]]);
    expect(lines.map((l) => l.text).join("\n")).toBe(JSON.stringify(tool, null, 2));
    expect(lines.filter((l) => l.marked).map((l) => l.text.trim())).toEqual(['"a": {', '"type": "integer"', "}"]);
  });

  it("finds an array's element by its index, and marks nothing off the path", () => {
    const prompt: JsonValue = { arguments: [{ name: "x" }, { name: "who", required: true }] };
    expect(
      jsonLines(prompt, [["arguments", "1", "required"]])
        .filter((l) => l.marked)
        .map((l) => l.text.trim()),
    ).toEqual(['"required": true']);
    expect(jsonLines(prompt, [["nothing", "here"]]).some((l) => l.marked)).toBe(false);
    expect(
      jsonLines(prompt, [
        ["arguments", "0"],
        ["arguments", "1", "required"],
      ])
        .filter((l) => l.marked)
        .map((l) => l.text.trim()),
    ).toEqual(["{", '"name": "x"', "},", '"required": true']);
  });
});

describe("tally", () => {
  const placed = (severity: Placed["change"]["severity"]) =>
    ({ change: { severity, kind: "", path: "", old: null, new: null, detail: "" }, definition: "" }) as Placed;
  it("counts each verdict, and says when nothing changed", () => {
    expect(tally([placed("breaking"), placed("change"), placed("breaking")])).toBe(
      "2 breaking, 1 change, 0 additions.",
    );
    expect(tally([])).toBe("No changes: the two interfaces are the same.");
  });
});
