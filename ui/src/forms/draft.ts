// A form's draft: the JSON value itself, so switching between the form and the raw JSON editor
// keeps everything, fields the schema does not name included. The one thing in a draft that is
// not JSON is `Unparsed`: text typed into a free-form JSON field that does not parse (yet).
// A number field's text that is not a number stays in the draft as that text (a string), so it
// is a problem by its field and survives a trip through the raw JSON editor as typed.
import { numberOf } from "./numbers";

/** The field a schema gets: `multi` is an array of enum values, shown as checkboxes. */
export type Kind =
  "object" | "array" | "multi" | "enum" | "choice" | "string" | "number" | "integer" | "boolean" | "json";

/** Text typed into a JSON field that does not parse: kept as typed, and a problem until fixed. */
export class Unparsed {
  constructor(readonly text: string) {}
}

/** A form's value: JSON, with `undefined` for what is not filled in and `Unparsed` leaves. */
export type Draft = unknown;

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A value as a label says it: text as itself, anything else as JSON. */
export const jsonLabel = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));

/** The text a text field shows for a draft value. */
export function leafText(kind: Kind, v: Draft): string {
  if (v === undefined) return "";
  if (v instanceof Unparsed) return v.text;
  if (typeof v === "string" && kind !== "json") return v;
  return kind === "json" ? JSON.stringify(v, null, isObject(v) || Array.isArray(v) ? 2 : undefined) : JSON.stringify(v);
}

/** The draft value of a text field's text. Text that is not a number of the field's kind stays a
 * string (and is a problem), so what was typed survives a trip through the raw JSON editor. */
export function parseLeaf(kind: Kind, text: string): Draft {
  if (text === "") return undefined;
  if (kind === "number" || kind === "integer") return numberOf(kind, text) ?? text;
  if (kind === "json") {
    try {
      return JSON.parse(text);
    } catch {
      return new Unparsed(text);
    }
  }
  return text;
}

/** The draft as JSON: unset fields left out, unset array items `null`, unparsed text as a string. */
export function toJson(v: Draft): unknown {
  if (v instanceof Unparsed) return v.text;
  if (Array.isArray(v)) return v.map((item) => (item === undefined ? null : toJson(item)));
  if (isObject(v)) {
    return Object.fromEntries(
      Object.entries(v)
        .filter(([, item]) => item !== undefined)
        .map(([k, item]) => [k, toJson(item)]),
    );
  }
  return v;
}

export const sameDraft = (a: Draft, b: Draft) =>
  a instanceof Unparsed || b instanceof Unparsed
    ? a instanceof Unparsed && b instanceof Unparsed && a.text === b.text
    : JSON.stringify(toJson(a)) === JSON.stringify(toJson(b));
