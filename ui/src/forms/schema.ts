// The schema form's model: what a JSON Schema (a tool's inputSchema, an elicitation's
// requestedSchema) asks for, the draft value a form starts from, and the problems that keep a
// draft from being sent. Pure functions; `SchemaForm.tsx` renders them, `draft.ts` holds the
// draft itself, `numbers.ts` and `formats.ts` the words for a field that does not parse.
//
// It checks what a form can get wrong: required, type, number syntax, enum, which choice, how
// many items, and the formats email, uri, date, time and date-time. Patterns and ranges are the
// server's to judge, and a person can send anything from the raw JSON editor.
import { SCHEMA_MAX_DEPTH } from "../ipc/backend";
import { isObject, jsonLabel, sameDraft, Unparsed, type Draft, type Kind } from "./draft";
import { formatProblem } from "./formats";
import { numberOf, numberProblem } from "./numbers";

export { leafText, parseLeaf, sameDraft, toJson, Unparsed, type Draft, type Kind } from "./draft";

export interface Schema {
  type?: string | string[];
  title?: string;
  description?: string;
  properties?: Record<string, unknown>;
  required?: string[];
  items?: unknown;
  minItems?: number;
  maxItems?: number;
  enum?: unknown[];
  /** The pre-2025-11-25 elicitation way of naming enum values. */
  enumNames?: string[];
  const?: unknown;
  oneOf?: unknown[];
  anyOf?: unknown[];
  default?: unknown;
  format?: string;
  $ref?: string;
  $defs?: Record<string, unknown>;
}

export interface Problem {
  /** Where, as `to.city` or `items[2]`; "" is the whole value. */
  path: string;
  message: string;
}

export interface Option {
  value: unknown;
  label: string;
}

export interface Branch {
  label: string;
  schema: Schema;
}

/** Deeper than this a (possibly recursive) schema is edited as JSON text: the core's depth,
 * which its checks of a schema stop at too. */
const MAX_DEPTH: number = SCHEMA_MAX_DEPTH;

/** A schema with its local `$ref` followed (`#/$defs/…`, `#/definitions/…`); anything else is `{}`.
 * The keywords a form reads are kept only when they have the kind it expects: a server's schema
 * can say `required: 5` or give an object as a title (the core says so in words; the form just
 * goes on without them). */
export function resolve(schema: unknown, root: unknown): Schema {
  let s = isObject(schema) ? (schema as Schema) : {};
  for (let hops = 0; typeof s.$ref === "string" && hops < MAX_DEPTH; hops++) {
    const { $ref, ...siblings } = s;
    let target: unknown = $ref.startsWith("#") ? root : undefined;
    for (const part of $ref.replace(/^#\/?/, "").split("/").filter(Boolean)) {
      target = isObject(target) ? target[part.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined;
    }
    s = { ...(isObject(target) ? (target as Schema) : {}), ...siblings };
  }
  return readable(s);
}

const isText = (v: unknown): v is string => typeof v === "string";
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/** `s` without the keywords a form reads that are of the wrong kind. */
function readable(s: Schema): Schema {
  const out: Schema = { ...s };
  const raw = s as Record<string, unknown>;
  for (const key of ["title", "description", "$ref", "format"] as const)
    if (key in raw && !isText(raw[key])) delete out[key];
  if ("type" in raw && !isText(raw.type) && !(Array.isArray(raw.type) && raw.type.every(isText))) delete out.type;
  if ("required" in raw) {
    if (Array.isArray(raw.required)) out.required = raw.required.filter(isText);
    else delete out.required;
  }
  if ("enumNames" in raw) {
    if (Array.isArray(raw.enumNames)) out.enumNames = raw.enumNames.map((n) => (isText(n) ? n : JSON.stringify(n)));
    else delete out.enumNames;
  }
  for (const key of ["enum", "oneOf", "anyOf"] as const) if (key in raw && !Array.isArray(raw[key])) delete out[key];
  for (const key of ["properties", "$defs"] as const) if (key in raw && !isObject(raw[key])) delete out[key];
  for (const key of ["minItems", "maxItems"] as const) if (key in raw && !isCount(raw[key])) delete out[key];
  return out;
}

/** The JSON type a schema asks for (the first that is not "null"); properties alone mean an object. */
export const typeOf = (s: Schema): string | undefined =>
  (Array.isArray(s.type) ? s.type.find((t) => t !== "null") : typeof s.type === "string" ? s.type : undefined) ??
  (s.properties ? "object" : undefined);

/** The values an enum allows, with labels: `enum` (and `enumNames`), or a `oneOf`/`anyOf` of `const`s. */
export function optionsOf(s: Schema): Option[] | null {
  if (Array.isArray(s.enum)) return s.enum.map((value, i) => ({ value, label: s.enumNames?.[i] ?? jsonLabel(value) }));
  const alternatives = (s.oneOf ?? s.anyOf)?.filter(isObject) as Schema[] | undefined;
  if (alternatives?.length && alternatives.every((a) => "const" in a)) {
    return alternatives.map((a) => ({ value: a.const, label: isText(a.title) ? a.title : jsonLabel(a.const) }));
  }
  return null;
}

/** The schema of an array's item at `index`: its `items` (or its place in a tuple of them). */
export function itemSchemaOf(s: Schema, root: unknown, index = 0): Schema {
  return resolve(Array.isArray(s.items) ? s.items[index] : s.items, root);
}

/** The branches of a `oneOf`/`anyOf`, each merged with what the parent schema says around it. */
export function branchesOf(s: Schema, root: unknown): Branch[] {
  // The parent's words (title, description, default) are about the choice, not each branch.
  const parent: Schema = { ...s };
  for (const key of ["oneOf", "anyOf", "title", "description", "default"] as const) delete parent[key];
  const branches = (s.oneOf ?? s.anyOf ?? []).map((b) => {
    const own = resolve(b, root);
    const schema: Schema = { ...parent, ...own };
    if (parent.properties || own.properties) schema.properties = { ...parent.properties, ...own.properties };
    if (parent.required || own.required) schema.required = [...(parent.required ?? []), ...(own.required ?? [])];
    return { label: own.title ?? typeOf(schema) ?? "choice", schema };
  });
  return branches.map((b, i) =>
    branches.some((o, j) => j !== i && o.label === b.label) ? { ...b, label: `${b.label} ${i + 1}` } : b,
  );
}

export function kindOf(s: Schema, depth = 0, root: unknown = s): Kind {
  if (depth > MAX_DEPTH) return "json";
  if (optionsOf(s)) return "enum";
  if ((s.oneOf ?? s.anyOf)?.length) return "choice";
  const t = typeOf(s);
  if (t === "object") return isObject(s.properties) && Object.keys(s.properties).length ? "object" : "json";
  if (t === "array") return !Array.isArray(s.items) && optionsOf(itemSchemaOf(s, root)) ? "multi" : "array";
  if (t === "string" || t === "number" || t === "integer" || t === "boolean") return t;
  return "json";
}

/** Whether a draft value has the shape a field of `kind` edits; one that does not (an object
 * field holding text typed in the raw JSON) is shown as JSON rather than hidden. */
export function fitsKind(kind: Kind, v: Draft): boolean {
  if (v === undefined || v instanceof Unparsed) return kind === "json" || v === undefined;
  if (kind === "object") return isObject(v);
  if (kind === "array" || kind === "multi") return Array.isArray(v);
  return true;
}

/** What a new form starts from: `{}` for objects (nested required ones too), and with
 * `withDefaults` the schema's `default`s. */
export function initialValue(schema: unknown, root: unknown = schema, withDefaults = false, depth = 0): Draft {
  const s = resolve(schema, root);
  if (withDefaults && s.default !== undefined) return structuredClone(s.default);
  if (kindOf(s, depth, root) !== "object") return undefined;
  const required = new Set(s.required ?? []);
  const value: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(s.properties ?? {})) {
    const v = initialValue(prop, root, withDefaults, depth + 1);
    if (v !== undefined && (required.has(name) || !isEmptyObject(v))) value[name] = v;
  }
  return value;
}

const isEmptyObject = (v: unknown) => isObject(v) && Object.keys(v).length === 0;

/** An object with one property set (or removed, for `undefined`). An optional object left empty
 * is removed as well, so touching a nested form and clearing it sends nothing. */
export function withProperty(target: Draft, name: string, v: Draft, keepEmpty: boolean): Draft {
  const next = { ...(isObject(target) ? target : {}) };
  if (v === undefined) delete next[name];
  // Defined rather than assigned, so a property named `__proto__` is a property like any other.
  else Object.defineProperty(next, name, { value: v, enumerable: true, writable: true, configurable: true });
  return keepEmpty || Object.keys(next).length ? next : undefined;
}

/** The branch a value belongs to: the first it satisfies, else the first of its JSON type. */
export function pickBranch(branches: Branch[], v: Draft, root: unknown): number {
  const valid = branches.findIndex((b) => problemsOf(b.schema, v, root).length === 0);
  if (valid >= 0) return valid;
  return Math.max(
    0,
    branches.findIndex((b) => fitsType(b.schema, v)),
  );
}

function fitsType(s: Schema, v: Draft): boolean {
  const t = typeOf(s);
  if (t === undefined) return true;
  if (t === "integer") return Number.isInteger(v);
  if (t === "object") return isObject(v);
  if (t === "array") return Array.isArray(v);
  return t === (v === null ? "null" : typeof v);
}

const join = (path: string, name: string) => (path ? `${path}.${name}` : name);
const said = (path: string) => path || "the value";
/** A value as a problem quotes it. */
const quote = (v: unknown) => JSON.stringify(v);
const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;

/** How many items an array may hold, in words; null when the schema does not say. */
export function countText(s: Schema, what = "item"): string | null {
  const { minItems: min, maxItems: max } = s;
  if (min !== undefined && max !== undefined) return min === max ? plural(min, what) : `${min} to ${plural(max, what)}`;
  if (min !== undefined && min > 0) return `at least ${plural(min, what)}`;
  if (max !== undefined) return `at most ${plural(max, what)}`;
  return null;
}

function countProblem(s: Schema, n: number, what: string): string | null {
  const wrong = (s.minItems !== undefined && n < s.minItems) || (s.maxItems !== undefined && n > s.maxItems);
  return wrong ? `needs ${countText(s, what)}, not ${n}` : null;
}

/** What keeps a draft from being sent, in form order; empty when it is ready. */
export function problemsOf(
  schema: unknown,
  v: Draft,
  root: unknown = schema,
  path = "",
  required = false,
  depth = 0,
): Problem[] {
  const s = resolve(schema, root);
  const problem = (message: string) => [{ path, message: `${said(path)} ${message}` }];
  if (v === undefined) return required ? problem("is required") : [];
  if (v instanceof Unparsed) return problem("is not valid JSON");
  const kind = kindOf(s, depth, root);
  switch (kind) {
    case "enum": {
      const options = optionsOf(s) ?? [];
      return options.some((o) => sameDraft(o.value, v))
        ? []
        : problem(`must be one of: ${options.map((o) => o.label).join(", ")}`);
    }
    case "choice": {
      const branches = branchesOf(s, root);
      const found = branches.map((b) => problemsOf(b.schema, v, root, path, required, depth + 1));
      if (found.some((p) => p.length === 0)) return [];
      const sameType = branches.filter((b) => fitsType(b.schema, v));
      if (sameType.length === 1) return found[branches.indexOf(sameType[0])];
      return problem(
        `matches none of the choices (${branches.map((b, i) => `${b.label}: ${found[i][0].message}`).join("; ")})`,
      );
    }
    case "object": {
      if (!isObject(v)) return problem(`must be an object, not ${quote(v)}`);
      const needed = new Set(s.required ?? []);
      return Object.entries(s.properties ?? {}).flatMap(([name, prop]) =>
        problemsOf(prop, v[name], root, join(path, name), needed.has(name), depth + 1),
      );
    }
    case "multi": {
      if (!Array.isArray(v)) return problem(`must be a list of choices, not ${quote(v)}`);
      const options = optionsOf(itemSchemaOf(s, root)) ?? [];
      const strangers = v.filter((item) => !options.some((o) => sameDraft(o.value, item)));
      if (strangers.length)
        return problem(
          `holds ${strangers.map(quote).join(", ")}, not among the choices: ${options.map((o) => o.label).join(", ")}`,
        );
      const count = countProblem(s, v.length, "choice");
      return count ? problem(count) : [];
    }
    case "array": {
      if (!Array.isArray(v)) return problem(`must be a list (an array), not ${quote(v)}`);
      const count = countProblem(s, v.length, "item");
      return [
        ...(count ? problem(count) : []),
        ...v.flatMap((item, i) => problemsOf(itemSchemaOf(s, root, i), item, root, `${path}[${i}]`, true, depth + 1)),
      ];
    }
    case "string": {
      if (typeof v !== "string") return problem("must be a string");
      const wrong = formatProblem(s.format, v);
      return wrong ? problem(`is ${quote(v)}, ${wrong}`) : [];
    }
    case "number":
    case "integer": {
      if (typeof v === "string")
        return problem(
          numberOf(kind, v) !== null
            ? `holds the text ${quote(v)}, not a number (quoted in the raw JSON): type it again here`
            : numberProblem(kind, v),
        );
      if (kind === "number") return typeof v === "number" ? [] : problem(`must be a number, not ${quote(v)}`);
      return Number.isInteger(v) ? [] : problem("must be an integer");
    }
    case "boolean":
      return typeof v === "boolean" ? [] : problem("must be true or false");
    case "json":
      return [];
  }
}
