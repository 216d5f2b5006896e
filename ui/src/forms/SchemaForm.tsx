// One form for any JSON Schema, used for a tool's arguments (ToolsPanel) and an elicitation's
// answer (QuestionDialog): nested objects as fieldsets, arrays with an editor per item, enums
// and booleans as selects (titles shown, consts sent), multi-select enums as checkboxes,
// `oneOf`/`anyOf` as a choice of branch, required fields marked, defaults named. It edits the
// draft of `schema.ts` and shows the problems its owner found on submit, each by its field; it
// does not submit. It keeps whatever the draft holds: a value a field cannot edit in its own way
// is shown as JSON, and properties the schema does not name are listed as kept and sent.
import { useId, useState } from "react";
import { Checks, Select, TextInput, type Control } from "./fields";
import { isObject } from "./draft";
import { keptOf, type Kept } from "./kept";
import {
  branchesOf,
  countText,
  fitsKind,
  initialValue,
  itemSchemaOf,
  kindOf,
  optionsOf,
  pickBranch,
  resolve,
  sameDraft,
  typeOf,
  withProperty,
  type Draft,
  type Kind,
  type Problem,
  type Schema,
} from "./schema";

interface Context {
  root: unknown;
  /** Prefix of every element id, unique per form. */
  id: string;
  problems: Map<string, string>;
}

interface FieldProps {
  ctx: Context;
  schema: Schema;
  label: string;
  path: string;
  value: Draft;
  onChange(v: Draft): void;
  required: boolean;
  depth: number;
  autoFocus?: boolean;
}

export function SchemaForm({
  schema,
  value,
  onChange,
  problems,
  autoFocus,
}: {
  schema: unknown;
  value: Draft;
  onChange(v: Draft): void;
  /** From the last submit: each is shown by its field. */
  problems: Problem[] | null;
  autoFocus?: boolean;
}) {
  const id = useId();
  const ctx: Context = { root: schema, id, problems: new Map() };
  for (const p of [...(problems ?? [])].reverse()) ctx.problems.set(p.path, p.message);
  const s = resolve(schema, schema);
  const props = { ctx, schema: s, path: "", value, onChange, required: true, depth: 0, autoFocus };
  // A root object with no properties (a tool without arguments) shows no fields at all.
  const object = (kindOf(s, 0, schema) === "object" || s.type === "object") && fitsKind("object", value);
  return (
    <>
      <KeptNote kept={keptOf(schema, value)} />
      {object ? <Properties {...props} /> : <Field {...props} label="Value" />}
    </>
  );
}

/** The properties the form has no field for, with their values: they are sent as they are. */
function KeptNote({ kept }: { kept: Kept[] }) {
  if (!kept.length) return null;
  return (
    <div className="kept" role="note" aria-label="Kept from the JSON">
      <p>
        The form has no field for {kept.length === 1 ? "this" : "these"}; kept as typed and sent with the rest (edit{" "}
        {kept.length === 1 ? "it" : "them"} in Raw JSON):
      </p>
      <ul>
        {kept.map((k) => (
          <li key={k.path}>
            <code>{k.path}</code> = <code className="kept-value">{preview(k.value)}</code>
          </li>
        ))}
      </ul>
    </div>
  );
}

const preview = (v: unknown) => {
  const text = JSON.stringify(v);
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
};

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

/** A schema named in a few words: its title or type, and what it is for. */
function described(s: Schema): string {
  const what = s.title ?? (optionsOf(s) ? "one of a list" : typeOf(s)) ?? "any JSON value";
  return s.description ? `${what}: ${s.description}` : what;
}

/** A schema's default as the field shows it: an option by its title, anything else as JSON. */
function defaultText(s: Schema, kind: Kind, root: unknown): string | null {
  if (s.default === undefined) return null;
  const options = kind === "enum" ? optionsOf(s) : kind === "multi" ? optionsOf(itemSchemaOf(s, root)) : null;
  const label = (v: unknown) =>
    options?.find((o) => sameDraft(o.value, v))?.label ?? (typeof v === "string" ? v : JSON.stringify(v));
  return kind === "multi" && Array.isArray(s.default) ? s.default.map(label).join(", ") : label(s.default);
}

/** The words under a field beyond its description: what its items are, how many it takes. */
function hintOf(s: Schema, own: Kind, kind: Kind, root: unknown): string | null {
  if (kind !== own)
    return `Shown as JSON: the schema asks for ${own === "multi" ? "a list of choices" : article(own)}.`;
  if (kind === "array") {
    const count = countText(s);
    return `Each item: ${described(itemSchemaOf(s, root))}${count ? ` (${count})` : ""}.`;
  }
  if (kind === "multi") {
    const count = countText(s, "choice");
    return count ? `Choose ${count}.` : null;
  }
  if (kind === "json") {
    // Free-form JSON: say what kind of value goes there, and what an object's values are.
    const type = typeOf(s);
    const values = (s as { additionalProperties?: unknown }).additionalProperties;
    const each = type === "object" && isObject(values) ? `, each value ${described(resolve(values, root))}` : "";
    return type ? `As JSON: ${article(type)}${each}.` : null;
  }
  return null;
}

function Field(props: FieldProps) {
  const { ctx, schema, label, path, required, depth } = props;
  const own = kindOf(schema, depth, ctx.root);
  // A value a field cannot edit in its own way (text where an object goes) is shown as JSON.
  const kind = fitsKind(own, props.value) ? own : "json";
  const id = `${ctx.id}-${path}`;
  const problem = ctx.problems.get(path);
  const fallback = defaultText(schema, own, ctx.root);
  const hint = hintOf(schema, own, kind, ctx.root);
  const describedBy = [
    schema.description && `${id}-about`,
    hint && `${id}-hint`,
    fallback !== null && `${id}-default`,
    problem && `${id}-problem`,
  ]
    .filter(Boolean)
    .join(" ");
  const about = (
    <>
      {schema.description && <small id={`${id}-about`}>{schema.description}</small>}
      {hint && <small id={`${id}-hint`}>{hint}</small>}
      {fallback !== null && (
        <small id={`${id}-default`} className="default">
          default: {fallback}
        </small>
      )}
      {problem && (
        <small id={`${id}-problem`} className="error">
          {problem}
        </small>
      )}
    </>
  );
  const title = (
    <>
      {label}
      {required && path !== "" && (
        <span className="required" aria-hidden="true">
          {" *"}
        </span>
      )}
    </>
  );
  const control: Control = {
    id,
    name: path,
    autoFocus: props.autoFocus,
    "aria-required": required,
    "aria-invalid": problem ? true : undefined,
    "aria-describedby": describedBy || undefined,
  };
  if (kind === "object" || kind === "array" || kind === "choice" || kind === "multi") {
    return (
      <fieldset className="group" aria-describedby={describedBy || undefined}>
        <legend>{title}</legend>
        {about}
        {kind === "object" ? (
          <Properties {...props} />
        ) : kind === "array" ? (
          <Items {...props} />
        ) : kind === "multi" ? (
          <Checks
            options={optionsOf(itemSchemaOf(schema, ctx.root)) ?? []}
            value={props.value}
            onChange={props.onChange}
            control={control}
          />
        ) : (
          <Choice {...props} id={id} />
        )}
      </fieldset>
    );
  }
  return (
    <div className="field">
      <label htmlFor={id}>{title}</label>
      {kind === "enum" || kind === "boolean" ? (
        <Select schema={schema} kind={kind} value={props.value} onChange={props.onChange} control={control} />
      ) : (
        <TextInput schema={schema} kind={kind} value={props.value} onChange={props.onChange} control={control} />
      )}
      {about}
    </div>
  );
}

/** An object's properties, in schema order. (What the draft holds beyond them, the form lists
 * once, at its top: see `KeptNote`.) */
function Properties({ ctx, schema, path, value, onChange, required, depth, autoFocus }: Omit<FieldProps, "label">) {
  const given =
    typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, Draft>) : {};
  const needed = new Set(schema.required ?? []);
  return (
    <>
      {Object.entries(schema.properties ?? {}).map(([name, prop], i) => {
        const s = resolve(prop, ctx.root);
        return (
          <Field
            key={name}
            ctx={ctx}
            schema={s}
            label={s.title ?? name}
            path={path ? `${path}.${name}` : name}
            value={Object.hasOwn(given, name) ? given[name] : undefined}
            onChange={(v) => onChange(withProperty(value, name, v, required))}
            required={needed.has(name)}
            depth={depth + 1}
            autoFocus={autoFocus && i === 0}
          />
        );
      })}
    </>
  );
}

/** An array's items, each in the editor of the item schema (JSON when it says nothing), with
 * Remove, and Add. Items keep their own keys so that removing one does not hand its
 * neighbour's state (a half-typed number, a chosen branch) to the next. */
function Items({ ctx, schema, label, path, value, onChange, depth, autoFocus }: FieldProps) {
  const items = Array.isArray(value) ? (value as Draft[]) : [];
  const [keys, setKeys] = useState(() => items.map((_, i) => i));
  const keyOf = (i: number) => (keys.length === items.length ? keys[i] : i);
  // The item schema's description is said once, above the items.
  const itemSchema = (i: number): Schema => ({ ...itemSchemaOf(schema, ctx.root, i), description: undefined });
  const add = () => {
    setKeys([...keys.slice(0, items.length), Math.max(-1, ...keys) + 1]);
    onChange([...items, initialValue(itemSchema(items.length), ctx.root, true, depth + 1)]);
  };
  const remove = (i: number) => {
    setKeys(keys.filter((_, j) => j !== i));
    onChange(items.filter((_, j) => j !== i));
  };
  return (
    <>
      {items.length === 0 && <p className="muted">No items.</p>}
      {items.map((item, i) => (
        <div className="array-item" key={keyOf(i)}>
          <Field
            ctx={ctx}
            schema={itemSchema(i)}
            label={`${label} ${i + 1}`}
            path={`${path}[${i}]`}
            value={item}
            onChange={(v) => onChange(items.map((old, j) => (j === i ? v : old)))}
            required
            depth={depth + 1}
            autoFocus={autoFocus && i === 0}
          />
          <button type="button" aria-label={`Remove ${label} ${i + 1}`} onClick={() => remove(i)}>
            Remove
          </button>
        </div>
      ))}
      <div>
        <button type="button" aria-label={`Add an item to ${label}`} onClick={add}>
          Add item
        </button>
      </div>
    </>
  );
}

/** A `oneOf`/`anyOf`: which branch, then that branch's form. Another branch starts from its
 * defaults; going back to one finds what was typed there. */
function Choice(props: FieldProps & { id: string }) {
  const { ctx, schema, label, value, onChange, depth, id } = props;
  const branches = branchesOf(schema, ctx.root);
  const [picked, setPicked] = useState(() => pickBranch(branches, value, ctx.root));
  const [typed, setTyped] = useState<Map<number, Draft>>(() => new Map());
  const branch = branches[picked] ?? branches[0];
  return (
    <>
      <div className="field">
        <label htmlFor={`${id}-branch`}>Kind of {label}</label>
        <select
          id={`${id}-branch`}
          autoFocus={props.autoFocus}
          value={picked}
          onChange={(e) => {
            const next = Number(e.target.value);
            setTyped(new Map(typed).set(picked, value));
            setPicked(next);
            onChange(
              typed.has(next) ? typed.get(next) : initialValue(branches[next].schema, ctx.root, true, depth + 1),
            );
          }}
        >
          {branches.map((b, i) => (
            <option key={i} value={i}>
              {b.label}
            </option>
          ))}
        </select>
      </div>
      {/* The branch's own fields; its problems are shown there, and the choice's once, above. */}
      <Field
        {...props}
        ctx={{ ...ctx, problems: withoutPath(ctx.problems, props.path) }}
        schema={branch.schema}
        label={branch.label}
        depth={depth + 1}
        autoFocus={false}
      />
    </>
  );
}

const withoutPath = (problems: Map<string, string>, path: string) => {
  const rest = new Map(problems);
  rest.delete(path);
  return rest;
};
