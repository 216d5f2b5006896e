// @vitest-environment happy-dom
import { useState } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { SchemaForm } from "./SchemaForm";
import { initialValue, problemsOf, toJson, type Draft } from "./schema";
import { choose, click, described, labelled, mount, type, unmount } from "./testing";

afterEach(unmount);

/** server-everything's elicitation form (trigger-elicitation-request), as it sends it, in part. */
const survey = {
  type: "object",
  properties: {
    firstLine: { title: "String with default", type: "string", default: "It was a dark and stormy night." },
    email: { title: "Email", type: "string", format: "email" },
    integer: { title: "Integer", type: "integer", default: 42 },
    instruments: {
      type: "array",
      title: "Instruments",
      minItems: 1,
      maxItems: 3,
      items: { type: "string", enum: ["Guitar", "Piano", "Violin"] },
      default: ["Guitar"],
    },
    hero: {
      type: "string",
      title: "Hero",
      oneOf: [
        { const: "hero-1", title: "Superman" },
        { const: "hero-2", title: "Green Lantern" },
      ],
      default: "hero-1",
    },
    fish: {
      type: "array",
      title: "Fish",
      items: {
        anyOf: [
          { const: "fish-1", title: "Tuna" },
          { const: "fish-2", title: "Salmon" },
        ],
      },
      default: ["fish-1"],
    },
    pet: { type: "string", title: "Pet", enum: ["pet-1", "pet-2"], enumNames: ["Cats", "Dogs"], default: "pet-1" },
    to: { type: "object", title: "To", properties: { city: { type: "string" } } },
    stops: {
      type: "array",
      title: "Stops",
      description: "Where the parcel stops on its way",
      items: { type: "object", title: "Stop", properties: { town: { type: "string" }, days: { type: "integer" } } },
    },
    notes: { type: "array", title: "Notes" },
    labels: { type: "object", title: "Labels", additionalProperties: { type: "string" } },
  },
  required: ["firstLine"],
};

/** A form as its owners hold it: the draft in state, problems from the last submit. */
function show(start: Draft) {
  const seen = { value: start };
  function Owner() {
    const [value, setValue] = useState<Draft>(start);
    const [problems, setProblems] = useState<ReturnType<typeof problemsOf> | null>(null);
    seen.value = value;
    return (
      <form onSubmit={(e) => (e.preventDefault(), setProblems(problemsOf(survey, value)))}>
        <SchemaForm schema={survey} value={value} onChange={setValue} problems={problems} />
      </form>
    );
  }
  const host = mount(<Owner />);
  return { host, seen, submit: () => click(host.querySelector("form")!.appendChild(submitButton())) };
}

const submitButton = () => Object.assign(document.createElement("button"), { type: "submit" });
const box = (host: Element, label: string) =>
  [...host.querySelectorAll<HTMLInputElement>("input[type=checkbox]")].find(
    (c) => c.parentElement?.textContent === label,
  )!;
const group = (host: Element, legend: string) =>
  [...host.querySelectorAll("fieldset")].find((f) => f.querySelector("legend")?.textContent?.startsWith(legend))!;

describe("the schema form, as a person uses it", () => {
  it("starts from the defaults and names each by its field, titles for choices", () => {
    const { host, seen } = show(initialValue(survey, survey, true));
    expect(labelled(host, "String with default").value).toBe("It was a dark and stormy night.");
    expect(described(labelled(host, "String with default"))).toEqual(["default: It was a dark and stormy night."]);
    expect(described(labelled(host, "Integer"))).toEqual(["default: 42"]);
    expect(described(labelled(host, "Hero"))).toEqual(["default: Superman"]);
    expect(described(labelled(host, "Pet"))).toEqual(["default: Cats"]);
    expect(group(host, "Instruments").textContent).toContain("default: Guitar");
    expect(group(host, "Fish").textContent).toContain("default: Tuna");
    expect(box(host, "Guitar").checked).toBe(true);
    expect(box(host, "Tuna").checked).toBe(true);
    expect(toJson(seen.value)).toMatchObject({ integer: 42, instruments: ["Guitar"], hero: "hero-1", pet: "pet-1" });
  });

  it("picks several choices with checkboxes, sending the consts of titled ones", () => {
    const { host, seen } = show(initialValue(survey, survey, true));
    expect(host.querySelectorAll("input[type=checkbox]")).toHaveLength(5);
    click(box(host, "Violin"));
    click(box(host, "Guitar"));
    expect((seen.value as { instruments: unknown }).instruments).toEqual(["Violin"]);
    click(box(host, "Salmon"));
    expect((seen.value as { fish: unknown }).fish).toEqual(["fish-1", "fish-2"]);
    // None chosen leaves the field out.
    click(box(host, "Violin"));
    expect(seen.value).not.toHaveProperty("instruments");
  });

  it("keeps a choice typed in the raw JSON that is not in the list, and says so", () => {
    const { host, seen } = show({ firstLine: "x", instruments: ["Harp", "Piano"] });
    expect(group(host, "Instruments").textContent).toContain('Also kept, not among the choices: "Harp"');
    click(box(host, "Guitar"));
    expect((seen.value as { instruments: unknown }).instruments).toEqual(["Guitar", "Piano", "Harp"]);
  });

  it("shows titles in a select and sends the const; legacy enumNames too", () => {
    const { host, seen } = show({ firstLine: "x" });
    const hero = labelled(host, "Hero") as unknown as HTMLSelectElement;
    expect([...hero.options].map((o) => o.text)).toEqual(["(unset)", "Superman", "Green Lantern"]);
    choose(hero, "1");
    expect((seen.value as { hero: unknown }).hero).toBe("hero-2");
    const pet = labelled(host, "Pet") as unknown as HTMLSelectElement;
    expect([...pet.options].map((o) => o.text)).toEqual(["(unset)", "Cats", "Dogs"]);
    choose(pet, "1");
    expect((seen.value as { pet: unknown }).pet).toBe("pet-2");
  });

  it("gives an array of objects an editor per item, its item schema said once", () => {
    const { host, seen } = show({ firstLine: "x" });
    const stops = group(host, "Stops");
    expect(stops.textContent).toContain("Where the parcel stops on its wayEach item: Stop.");
    click([...stops.querySelectorAll("button")].find((b) => b.textContent === "Add item")!);
    type(labelled(host, "town"), "Lyon");
    type(labelled(host, "days"), "2");
    expect((seen.value as { stops: unknown }).stops).toEqual([{ town: "Lyon", days: 2 }]);
    // Items of no known schema are JSON, one text area each.
    const notes = group(host, "Notes");
    expect(notes.textContent).toContain("Each item: any JSON value.");
    click([...notes.querySelectorAll("button")].find((b) => b.textContent === "Add item")!);
    type(notes.querySelector("textarea")!, '{"any": [1]}');
    expect((seen.value as { notes: unknown }).notes).toEqual([{ any: [1] }]);
    // An object of any keys is JSON too, and says what its values are.
    expect(described(labelled(host, "Labels"))).toEqual(["As JSON: an object, each value string."]);
  });

  it("refuses a bad email, a blank and a hex number by their fields", () => {
    const { host, submit } = show({ firstLine: "x" });
    type(labelled(host, "Email"), "ada.example.com");
    type(labelled(host, "Integer"), " ");
    submit();
    expect(labelled(host, "Email").getAttribute("aria-invalid")).toBe("true");
    expect(described(labelled(host, "Email"))).toEqual([
      'email is "ada.example.com", not an email address (like name@example.com)',
    ]);
    expect(described(labelled(host, "Integer"))).toEqual([
      "default: 42",
      "integer is blank: type a number, or empty the field to leave it out",
    ]);
    type(labelled(host, "Integer"), "0x10");
    submit();
    expect(described(labelled(host, "Integer"))[1]).toBe(
      'integer is "0x10", not a JSON number: write it in decimal digits (16)',
    );
    expect(labelled(host, "Integer").value).toBe("0x10");
  });

  it("lists what it holds without a field, and shows as JSON a value its field cannot edit", () => {
    const { host, seen } = show({ firstLine: "x", to: "Oslo", extra: { nested: { kept: true } } });
    const note = host.querySelector("[role=note][aria-label='Kept from the JSON']")!;
    expect(note.textContent).toContain('extra = {"nested":{"kept":true}}');
    expect(group(host, "To")).toBeUndefined();
    const asJson = labelled(host, "To") as unknown as HTMLTextAreaElement;
    expect(asJson.tagName).toBe("TEXTAREA");
    expect(asJson.value).toBe('"Oslo"');
    expect(described(asJson)).toEqual(["Shown as JSON: the schema asks for an object."]);
    // Typed into an object, it becomes the object's fields; the kept value stays as it was.
    type(asJson, '{"city": "Lyon"}');
    expect(labelled(host, "city").value).toBe("Lyon");
    expect(seen.value).toEqual({ firstLine: "x", to: { city: "Lyon" }, extra: { nested: { kept: true } } });
  });
});
