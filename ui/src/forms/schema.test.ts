import { describe, expect, it } from "vitest";
import {
  branchesOf,
  initialValue,
  kindOf,
  leafText,
  optionsOf,
  parseLeaf,
  pickBranch,
  problemsOf,
  resolve,
  toJson,
  Unparsed,
  withProperty,
  type Schema,
} from "./schema";

const order = {
  type: "object",
  properties: {
    to: {
      type: "object",
      properties: { city: { type: "string" }, zip: { type: "string" } },
      required: ["city"],
    },
    items: { type: "array", items: { type: "integer" } },
    speed: { type: "string", enum: ["standard", "express"] },
    payment: {
      oneOf: [
        { title: "Card", type: "object", properties: { card: { type: "string" } }, required: ["card"] },
        { title: "Invoice", type: "object", properties: { invoice: { type: "integer" } }, required: ["invoice"] },
      ],
    },
    tags: { $ref: "#/$defs/tags" },
    on: { type: ["boolean", "null"] },
    extra: {},
  },
  required: ["to", "speed"],
  $defs: { tags: { type: "array", items: { type: "string" } } },
};
const prop = (name: string) => resolve(order.properties[name as keyof typeof order.properties], order);

describe("what the schema asks for", () => {
  it("gives each kind of property its kind of field", () => {
    const kinds = Object.keys(order.properties).map((name) => [name, kindOf(prop(name))]);
    expect(kinds).toEqual([
      ["to", "object"],
      ["items", "array"],
      ["speed", "enum"],
      ["payment", "choice"],
      ["tags", "array"],
      ["on", "boolean"],
      ["extra", "json"],
    ]);
  });
  it("labels enum values by enumNames, or the titles of a oneOf of consts", () => {
    expect(optionsOf({ enum: ["a", 2], enumNames: ["Ay"] })).toEqual([
      { value: "a", label: "Ay" },
      { value: 2, label: "2" },
    ]);
    const titled = { type: "string", oneOf: [{ const: "r", title: "Red" }, { const: "g" }] };
    expect(kindOf(titled)).toBe("enum");
    expect(optionsOf(titled)).toEqual([
      { value: "r", label: "Red" },
      { value: "g", label: "g" },
    ]);
  });
  it("merges a choice's surroundings into each branch and names untitled branches apart", () => {
    const s: Schema = {
      type: "object",
      description: "about the choice",
      properties: { id: { type: "string" } },
      required: ["id"],
      anyOf: [{ properties: { a: { type: "string" } } }, { properties: { b: { type: "string" } }, required: ["b"] }],
    };
    const branches = branchesOf(s, s);
    expect(branches.map((b) => b.label)).toEqual(["object 1", "object 2"]);
    expect(Object.keys(branches[1].schema.properties ?? {})).toEqual(["id", "b"]);
    expect(branches[1].schema.required).toEqual(["id", "b"]);
    expect(branches[0].schema.description).toBeUndefined();
  });
  it("edits a recursive schema as JSON below a depth", () => {
    const tree: Schema = {
      $ref: "#/$defs/node",
      $defs: { node: { type: "object", properties: { kid: { $ref: "#/$defs/node" } } } },
    };
    let depth = 0;
    for (let s = resolve(tree, tree); kindOf(s, depth) === "object"; depth++) s = resolve(s.properties!.kid, tree);
    expect(depth).toBe(9);
  });
});

describe("a new form", () => {
  it("starts with the required nested objects, and with defaults only when asked", () => {
    const s = {
      type: "object",
      properties: { name: { type: "string", default: "Ada" }, to: order.properties.to },
      required: ["to"],
    };
    expect(initialValue(s)).toEqual({ to: {} });
    expect(initialValue(s, s, true)).toEqual({ name: "Ada", to: {} });
    expect(initialValue(order)).toEqual({ to: {} });
  });
});

describe("what keeps a form from being sent", () => {
  it("names missing required fields by their path, nested ones too", () => {
    expect(problemsOf(order, { to: {} })).toEqual([
      { path: "to.city", message: "to.city is required" },
      { path: "speed", message: "speed is required" },
    ]);
  });
  it("checks the type of each field, array items and enum values", () => {
    const found = problemsOf(order, { to: { city: 5 }, speed: "warp", items: [1, 1.5, undefined], on: "yes" });
    expect(found.map((p) => p.message)).toEqual([
      "to.city must be a string",
      "items[1] must be an integer",
      "items[2] is required",
      "speed must be one of: standard, express",
      "on must be true or false",
    ]);
  });
  it("says which JSON field does not parse", () => {
    expect(problemsOf(order, { to: { city: "Oslo" }, speed: "express", extra: new Unparsed("[1,") })).toEqual([
      { path: "extra", message: "extra is not valid JSON" },
    ]);
  });
  it("accepts a value that fits one branch of a choice, and otherwise lists each branch's problem", () => {
    const ok = { to: { city: "Oslo" }, speed: "express" };
    expect(problemsOf(order, { ...ok, payment: { invoice: 7 } })).toEqual([]);
    expect(problemsOf(order, { ...ok, payment: {} }).map((p) => p.message)).toEqual([
      "payment matches none of the choices (Card: payment.card is required; Invoice: payment.invoice is required)",
    ]);
    const kinds: Schema = { oneOf: [{ type: "string" }, { type: "object", properties: { n: { type: "integer" } } }] };
    expect(problemsOf(kinds, { n: "x" })).toEqual([
      { path: "n", message: 'n is "x", not an integer: decimal digits with an optional minus, like -12 or 42' },
    ]);
  });
  it("finds the branch a value already belongs to", () => {
    const branches = branchesOf(prop("payment"), order);
    expect(pickBranch(branches, { invoice: 3 }, order)).toBe(1);
    expect(pickBranch(branches, { card: "x" }, order)).toBe(0);
    expect(pickBranch(branchesOf({ oneOf: [{ type: "string" }, { type: "array" }] }, {}), [1], {})).toBe(1);
  });
});

describe("raw JSON → form → raw JSON", () => {
  it("keeps what was typed, fields the form does not know included", () => {
    const typed = `{"to":{"city":"Oslo","floor":3},"speed":"express","items":[1,"two"],"note":{"gift":true}}`;
    // The form edits one nested field and adds an array item...
    let value = JSON.parse(typed);
    value = withProperty(value, "to", withProperty(value.to, "city", parseLeaf("string", "Bergen"), true), true);
    value = withProperty(value, "items", [...value.items, parseLeaf("integer", "3")], false);
    // ...and shows the non-number the raw JSON held as it was typed, not as an empty field.
    expect(leafText("integer", value.items[1])).toBe("two");
    expect(JSON.parse(JSON.stringify(toJson(value)))).toEqual({
      to: { city: "Bergen", floor: 3 },
      speed: "express",
      items: [1, "two", 3],
      note: { gift: true },
    });
  });
  it("turns field text into values and back without losing it", () => {
    expect(parseLeaf("number", "1.50")).toBe(1.5);
    expect(parseLeaf("number", "1.5e")).toBe("1.5e");
    expect(parseLeaf("integer", " ")).toBe(" ");
    expect(parseLeaf("string", "")).toBeUndefined();
    expect(parseLeaf("json", '{"a":[1]}')).toEqual({ a: [1] });
    const broken = parseLeaf("json", "[1,");
    expect(broken).toBeInstanceOf(Unparsed);
    expect(leafText("json", broken)).toBe("[1,");
    expect(toJson({ a: broken, b: undefined, c: [undefined, 2] })).toEqual({ a: "[1,", c: [null, 2] });
    expect(leafText("json", "text")).toBe('"text"');
  });
  it("drops an optional nested object the form emptied, and keeps a required one", () => {
    expect(withProperty({ city: "Oslo" }, "city", undefined, false)).toBeUndefined();
    expect(withProperty({ city: "Oslo" }, "city", undefined, true)).toEqual({});
    expect(withProperty({ city: "Oslo", floor: 3 }, "city", undefined, false)).toEqual({ floor: 3 });
  });
});

describe("a schema of the wrong shapes", () => {
  const hostile = {
    type: "object",
    properties: { text: { type: "string" }, nested: { type: "object", properties: { a: { type: 3 } }, required: "a" } },
    required: 5,
  };
  it("starts a form and finds problems without throwing, ignoring what it cannot read", () => {
    expect(initialValue(hostile)).toEqual({});
    expect(problemsOf(hostile, {})).toEqual([]);
    expect(problemsOf(hostile, { text: 3 })).toEqual([{ path: "text", message: "text must be a string" }]);
    expect(resolve({ required: [1, "b"], title: {}, enum: "x", properties: [] }, {})).toEqual({ required: ["b"] });
  });
  it("names a branch or an option by its title only when the title is text", () => {
    const s = resolve(
      {
        oneOf: [
          { const: 1, title: { a: 1 } },
          { const: 2, title: "Two" },
        ],
      },
      {},
    );
    expect(optionsOf(s)?.map((o) => o.label)).toEqual(["1", "Two"]);
  });
});
