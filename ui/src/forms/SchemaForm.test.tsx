import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { SchemaForm } from "./SchemaForm";

const schema = {
  type: "object",
  properties: {
    name: { type: "string", title: "Your name", description: "As you like to be called" },
    to: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    tags: { type: "array", items: { type: "string" } },
    formal: { type: "boolean" },
  },
  required: ["name"],
};

const render = (value: unknown, problems = null as { path: string; message: string }[] | null) => {
  const html = renderToStaticMarkup(
    <SchemaForm schema={schema} value={value} onChange={() => {}} problems={problems} />,
  );
  return new Markup(html);
};

/** Just enough of a DOM for these checks: elements with their attributes, found by regex. */
class Markup {
  constructor(readonly html: string) {}
  attrs(tag: string): Record<string, string>[] {
    return [...this.html.matchAll(new RegExp(`<${tag}\\b([^>]*)>`, "g"))].map((m) =>
      Object.fromEntries([...m[1].matchAll(/([\w-]+)="([^"]*)"/g)].map((a) => [a[1], a[2]])),
    );
  }
}

describe("the schema form's markup", () => {
  it("ties every label to its control, by id", () => {
    const dom = render({ to: {}, tags: ["x"] });
    const controls = [...dom.attrs("input"), ...dom.attrs("select")];
    const labelled = new Set(dom.attrs("label").map((l) => l.for));
    expect(controls.map((c) => c.name).sort()).toEqual(["formal", "name", "tags[0]", "to.city"]);
    for (const c of controls) expect(labelled.has(c.id), `${c.name} has a label`).toBe(true);
    expect(new Set(controls.map((c) => c.id)).size).toBe(controls.length);
  });
  it("marks required fields and points a field at its problem and description", () => {
    const dom = render({ to: {} }, [{ path: "to.city", message: "to.city is required" }]);
    const byName = Object.fromEntries([...dom.attrs("input"), ...dom.attrs("select")].map((c) => [c.name, c]));
    expect(byName["name"]["aria-required"]).toBe("true");
    expect(byName["to.city"]["aria-required"]).toBe("true");
    expect(byName["formal"]["aria-required"]).toBe("false");
    expect(byName["to.city"]["aria-invalid"]).toBe("true");
    expect(byName["name"]["aria-invalid"]).toBeUndefined();
    const problem = byName["to.city"]["aria-describedby"];
    expect(dom.html).toContain(`id="${problem}" class="error">to.city is required<`);
    expect(dom.html).toContain(`id="${byName["name"]["aria-describedby"]}">As you like to be called<`);
  });
  it("offers Add for an array and Remove for each of its items", () => {
    const buttons = render({ tags: ["a", "b"] })
      .attrs("button")
      .map((b) => b["aria-label"]);
    expect(buttons).toEqual(["Remove tags 1", "Remove tags 2", "Add an item to tags"]);
  });
  it("renders a hostile schema's fields and skips what is of the wrong kind", () => {
    const hostile = {
      type: "object",
      title: { text: "an object as a title" },
      properties: {
        text: { type: "string", title: { a: 1 }, description: 7 },
        pick: { enum: ["a", "b"], enumNames: [{ x: 1 }, "B"] },
        pay: { oneOf: [{ const: 1, title: { y: 2 } }, { const: 2 }] },
        odd: { properties: [], required: { city: true } },
      },
      required: 5,
    };
    const html = renderToStaticMarkup(<SchemaForm schema={hostile} value={{}} onChange={() => {}} problems={null} />);
    const dom = new Markup(html);
    expect(dom.attrs("input").map((c) => c.name)).toEqual(["text"]);
    // An object with no readable properties is free-form JSON, edited in a text area.
    expect(dom.attrs("textarea").map((c) => c.name)).toEqual(["odd"]);
    expect(dom.attrs("select").map((c) => c.name)).toEqual(["pick", "pay"]);
    expect(html).toContain("{&quot;x&quot;:1}");
    expect(html).not.toContain("[object Object]");
  });
});
