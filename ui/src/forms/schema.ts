// The schema form's model: what a JSON Schema (a tool's inputSchema, an elicitation's
// requestedSchema) asks for, the draft value a form edits, and the problems that keep a draft
// from being sent. Pure functions; `SchemaForm.tsx` renders them.
//
// The draft is the JSON value itself, so switching between the form and the raw JSON editor keeps
// everything, fields the schema does not name included. The one thing in a draft that is not JSON
// is `Unparsed`: text typed into a free-form JSON field that does not parse (yet).
//
// It checks only what a form can get wrong (required, type, enum, which choice): patterns, ranges
// and formats are the server's to judge, and a person can send anything from the raw JSON editor.

export interface Schema {
  type?: string | string[];
  title?: string;
  description?: string;
  properties?: Record<string, unknown>;
  required?: string[];
  items?: unknown;
  enum?: unknown[];
  /** The pre-2025-11-25 elicitation way of naming enum values. */
  enumNames?: string[];
  const?: unknown;
  oneOf?: unknown[];
  anyOf?: unknown[];
  default?: unknown;
  $ref?: string;
  $defs?: Record<string, unknown>;
}

export type Kind = "object" | "array" | "enum" | "choice" | "string" | "number" | "integer" | "boolean" | "json";

/** Text typed into a JSON field that does not parse: kept as typed, and a problem until fixed. */
export class Unparsed {
  constructor(readonly text: string) {}
}

/** A form's value: JSON, with `undefined` for what is not filled in and `Unparsed` leaves. */
export type Draft = unknown;

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

/** Deeper than this a (possibly recursive) schema is edited as JSON text. */
const MAX_DEPTH = 8;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

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

/** `s` without the keywords a form reads that are of the wrong kind. */
function readable(s: Schema): Schema {
  const out: Schema = { ...s };
  const raw = s as Record<string, unknown>;
  for (const key of ["title", "description", "$ref"] as const) if (key in raw && !isText(raw[key])) delete out[key];
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
  return out;
}

/** The JSON type a schema asks for (the first that is not "null"); properties alone mean an object. */
const typeOf = (s: Schema): string | undefined =>
  (Array.isArray(s.type) ? s.type.find((t) => t !== "null") : typeof s.type === "string" ? s.type : undefined) ??
  (s.properties ? "object" : undefined);

const jsonLabel = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));

/** The values an enum allows, with labels: `enum` (and `enumNames`), or a `oneOf`/`anyOf` of `const`s. */
export function optionsOf(s: Schema): Option[] | null {
  if (Array.isArray(s.enum)) return s.enum.map((value, i) => ({ value, label: s.enumNames?.[i] ?? jsonLabel(value) }));
  const alternatives = (s.oneOf ?? s.anyOf)?.filter(isObject) as Schema[] | undefined;
  if (alternatives?.length && alternatives.every((a) => "const" in a)) {
    return alternatives.map((a) => ({ value: a.const, label: isText(a.title) ? a.title : jsonLabel(a.const) }));
  }
  return null;
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

export function kindOf(s: Schema, depth = 0): Kind {
  if (depth > MAX_DEPTH) return "json";
  if (optionsOf(s)) return "enum";
  if ((s.oneOf ?? s.anyOf)?.length) return "choice";
  const t = typeOf(s);
  if (t === "object") return isObject(s.properties) && Object.keys(s.properties).length ? "object" : "json";
  if (t === "array") return isObject(s.items) ? "array" : "json";
  if (t === "string" || t === "number" || t === "integer" || t === "boolean") return t;
  return "json";
}

/** What a new form starts from: `{}` for objects (nested required ones too), and with
 * `withDefaults` the schema's `default`s (an elicitation's suggestions). */
export function initialValue(schema: unknown, root: unknown = schema, withDefaults = false, depth = 0): Draft {
  const s = resolve(schema, root);
  if (withDefaults && s.default !== undefined) return structuredClone(s.default);
  if (kindOf(s, depth) !== "object") return undefined;
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
  else next[name] = v;
  return keepEmpty || Object.keys(next).length ? next : undefined;
}

/** The text a text field shows for a draft value. */
export function leafText(kind: Kind, v: Draft): string {
  if (v === undefined) return "";
  if (v instanceof Unparsed) return v.text;
  if (typeof v === "string" && kind !== "json") return v;
  return JSON.stringify(v);
}

/** The draft value of a text field's text. Text that is not a number stays a string (and is a
 * problem), so what was typed survives a trip through the raw JSON editor. */
export function parseLeaf(kind: Kind, text: string): Draft {
  if (text === "") return undefined;
  if (kind === "number" || kind === "integer") {
    const n = Number(text);
    return text.trim() !== "" && Number.isFinite(n) ? n : text;
  }
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
  const kind = kindOf(s, depth);
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
      if (!isObject(v)) return problem("must be an object");
      const needed = new Set(s.required ?? []);
      return Object.entries(s.properties ?? {}).flatMap(([name, prop]) =>
        problemsOf(prop, v[name], root, join(path, name), needed.has(name), depth + 1),
      );
    }
    case "array":
      if (!Array.isArray(v)) return problem("must be an array");
      return v.flatMap((item, i) => problemsOf(s.items, item, root, `${path}[${i}]`, true, depth + 1));
    case "string":
      return typeof v === "string" ? [] : problem("must be a string");
    case "number":
      return typeof v === "number" ? [] : problem("must be a number");
    case "integer":
      return Number.isInteger(v) ? [] : problem("must be an integer");
    case "boolean":
      return typeof v === "boolean" ? [] : problem("must be true or false");
    case "json":
      return [];
  }
}
