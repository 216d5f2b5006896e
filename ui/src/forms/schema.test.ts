import { describe, expect, it } from "vitest";
import { keptOf } from "./kept";
import {
  branchesOf,
  countText,
  fitsKind,
  initialValue,
  itemSchemaOf,
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

/** server-everything's elicitation form (trigger-elicitation-request), in part, as it sends it. */
const survey = {
  type: "object",
  properties: {
    firstLine: { type: "string", default: "It was a dark and stormy night." },
    integer: { type: "integer", default: 42 },
    instruments: {
      type: "array",
      minItems: 1,
      maxItems: 3,
      items: { type: "string", enum: ["Guitar", "Piano", "Violin"] },
      default: ["Guitar"],
    },
    hero: {
      type: "string",
      oneOf: [
        { const: "hero-1", title: "Superman" },
        { const: "hero-2", title: "Green Lantern" },
      ],
      default: "hero-1",
    },
    fish: {
      type: "array",
      items: {
        anyOf: [
          { const: "fish-1", title: "Tuna" },
          { const: "fish-2", title: "Salmon" },
        ],
      },
      default: ["fish-1"],
    },
    pet: { type: "string", enum: ["pet-1", "pet-2"], enumNames: ["Cats", "Dogs"], default: "pet-1" },
    to: { type: "object", properties: { city: { type: "string", default: "Oslo" } } },
  },
  required: ["firstLine"],
};

describe("defaults", () => {
  it("fill the first draft, nested ones too, and arrays of choices", () => {
    expect(initialValue(survey, survey, true)).toEqual({
      firstLine: "It was a dark and stormy night.",
      integer: 42,
      instruments: ["Guitar"],
      hero: "hero-1",
      fish: ["fish-1"],
      pet: "pet-1",
      to: { city: "Oslo" },
    });
    expect(problemsOf(survey, initialValue(survey, survey, true))).toEqual([]);
  });
});

describe("multi-select enums", () => {
  const field = (name: string) => resolve(survey.properties[name as keyof typeof survey.properties], survey);
  it("are a kind of their own, plain or titled, with the titles as labels", () => {
    expect(kindOf(field("instruments"))).toBe("multi");
    expect(kindOf(field("fish"))).toBe("multi");
    expect(optionsOf(itemSchemaOf(field("fish"), survey))).toEqual([
      { value: "fish-1", label: "Tuna" },
      { value: "fish-2", label: "Salmon" },
    ]);
    const viaRef = { type: "array", items: { $ref: "#/$defs/c" }, $defs: { c: { enum: ["a", "b"] } } };
    expect(kindOf(resolve(viaRef, viaRef), 0, viaRef)).toBe("multi");
  });
  it("refuse a value that is not a choice, and too few or too many", () => {
    const ok = { firstLine: "x" };
    const said = (instruments: unknown) => problemsOf(survey, { ...ok, instruments }).map((p) => p.message);
    expect(said(["Piano", "Violin"])).toEqual([]);
    expect(said(["Harp"])).toEqual(['instruments holds "Harp", not among the choices: Guitar, Piano, Violin']);
    expect(said([])).toEqual(["instruments needs 1 to 3 choices, not 0"]);
    expect(said(["Guitar", "Piano", "Violin", "Guitar"])).toEqual(["instruments needs 1 to 3 choices, not 4"]);
    expect(said("Guitar")).toEqual(['instruments must be a list of choices, not "Guitar"']);
  });
});

describe("arrays", () => {
  it("get an item editor whatever their items say, JSON when they say nothing", () => {
    expect(kindOf({ type: "array" })).toBe("array");
    expect(kindOf({ type: "array", items: true } as Schema)).toBe("array");
    expect(itemSchemaOf({ type: "array" }, {})).toEqual({});
    const tuple: Schema = { type: "array", items: [{ type: "string" }, { type: "integer" }] };
    expect(itemSchemaOf(tuple, tuple, 1)).toEqual({ type: "integer" });
    expect(problemsOf(tuple, ["a", 1.5]).map((p) => p.message)).toEqual(["[1] must be an integer"]);
  });
  it("count their items when the schema says how many", () => {
    const s: Schema = { type: "array", items: { type: "string" }, minItems: 2 };
    expect(countText(s)).toBe("at least 2 items");
    expect(problemsOf(s, ["a"]).map((p) => p.message)).toEqual(["the value needs at least 2 items, not 1"]);
  });
});

describe("a value a field cannot edit in its own way", () => {
  it("is noticed, to be shown as JSON", () => {
    expect(fitsKind("object", "Oslo")).toBe(false);
    expect(fitsKind("array", { a: 1 })).toBe(false);
    expect(fitsKind("multi", "Guitar")).toBe(false);
    expect(fitsKind("object", undefined)).toBe(true);
    expect(fitsKind("string", 5)).toBe(true);
    expect(problemsOf(order, { to: "Oslo", speed: "express" }).map((p) => p.message)).toEqual([
      'to must be an object, not "Oslo"',
    ]);
  });
});

describe("what the form keeps without a field", () => {
  it("lists unnamed properties at any depth, in array items and in a choice's branch", () => {
    const typed = {
      to: { city: "Oslo", floor: 3, door: { code: "1234" } },
      speed: "express",
      gift: { wrap: true },
      payment: { invoice: 7, ref: "A-1" },
      tags: ["x"],
    };
    expect(keptOf(order, typed)).toEqual([
      { path: "to.floor", value: 3 },
      { path: "to.door", value: { code: "1234" } },
      { path: "gift", value: { wrap: true } },
      { path: "payment.ref", value: "A-1" },
    ]);
    const list = { type: "array", items: { type: "object", properties: { a: { type: "string" } } } };
    expect(keptOf(list, [{ a: "x", b: 1 }])).toEqual([{ path: "[0].b", value: 1 }]);
  });
  it("lists nothing that a field shows, even as JSON, and no inherited names", () => {
    expect(keptOf(order, { to: "Oslo", extra: { any: "thing" } })).toEqual([]);
    expect(keptOf({ type: "object" }, { constructor: 1, toString: 2 })).toEqual([
      { path: "constructor", value: 1 },
      { path: "toString", value: 2 },
    ]);
  });
});
