// One form for any JSON Schema, used for a tool's arguments (ToolsPanel) and an elicitation's
// answer (QuestionDialog): nested objects as fieldsets, arrays with Add and Remove, enums and
// booleans as selects, `oneOf`/`anyOf` as a choice of branch, required fields marked. It edits
// the draft of `schema.ts` and shows the problems its owner found on submit, each by its field;
// it does not submit, and it keeps whatever the draft holds that the schema does not name.
import { useId, useState } from "react";
import {
  branchesOf,
  initialValue,
  kindOf,
  leafText,
  optionsOf,
  parseLeaf,
  pickBranch,
  resolve,
  sameDraft,
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
  const object = kindOf(s) === "object" || s.type === "object";
  return object ? <Properties {...props} /> : <Field {...props} label="Value" />;
}

function Field(props: FieldProps) {
  const { ctx, schema, label, path, required, depth } = props;
  const kind = kindOf(schema, depth);
  const id = `${ctx.id}-${path}`;
  const problem = ctx.problems.get(path);
  const describedBy = [schema.description && `${id}-about`, problem && `${id}-problem`].filter(Boolean).join(" ");
  const about = (
    <>
      {schema.description && <small id={`${id}-about`}>{schema.description}</small>}
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
  if (kind === "object" || kind === "array" || kind === "choice") {
    return (
      <fieldset className="group" aria-describedby={describedBy || undefined}>
        <legend>{title}</legend>
        {about}
        {kind === "object" ? (
          <Properties {...props} />
        ) : kind === "array" ? (
          <Items {...props} />
        ) : (
          <Choice {...props} id={id} />
        )}
      </fieldset>
    );
  }
  const control = {
    id,
    name: path,
    autoFocus: props.autoFocus,
    "aria-required": required,
    "aria-invalid": problem ? true : undefined,
    "aria-describedby": describedBy || undefined,
  };
  return (
    <div className="field">
      <label htmlFor={id}>{title}</label>
      {kind === "enum" || kind === "boolean" ? (
        <Select {...props} kind={kind} control={control} />
      ) : (
        <TextInput kind={kind} value={props.value} onChange={props.onChange} control={control} />
      )}
      {about}
    </div>
  );
}

/** An object's properties, in schema order, and a word about the ones it does not name. */
function Properties({ ctx, schema, path, value, onChange, required, depth, autoFocus }: Omit<FieldProps, "label">) {
  const given =
    typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, Draft>) : {};
  const needed = new Set(schema.required ?? []);
  const properties = Object.entries(schema.properties ?? {});
  const unnamed = Object.keys(given).filter((k) => !(k in (schema.properties ?? {})));
  return (
    <>
      {properties.map(([name, prop], i) => {
        const s = resolve(prop, ctx.root);
        return (
          <Field
            key={name}
            ctx={ctx}
            schema={s}
            label={s.title ?? name}
            path={path ? `${path}.${name}` : name}
            value={given[name]}
            onChange={(v) => onChange(withProperty(value, name, v, required))}
            required={needed.has(name)}
            depth={depth + 1}
            autoFocus={autoFocus && i === 0}
          />
        );
      })}
      {unnamed.length > 0 && <p className="muted">Also kept as given: {unnamed.join(", ")}</p>}
    </>
  );
}

/** An array's items, each with Remove, and Add. Items keep their own keys so that removing one
 * does not hand its neighbour's state (a half-typed number, a chosen branch) to the next. */
function Items({ ctx, schema, label, path, value, onChange, depth, autoFocus }: FieldProps) {
  const items = Array.isArray(value) ? (value as Draft[]) : [];
  const [keys, setKeys] = useState(() => items.map((_, i) => i));
  const keyOf = (i: number) => (keys.length === items.length ? keys[i] : i);
  const itemSchema = resolve(schema.items, ctx.root);
  const add = () => {
    setKeys([...keys.slice(0, items.length), Math.max(-1, ...keys) + 1]);
    onChange([...items, initialValue(itemSchema, ctx.root, false, depth + 1)]);
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
            schema={itemSchema}
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

/** A `oneOf`/`anyOf`: which branch, then that branch's form. Choosing another branch starts it afresh. */
function Choice(props: FieldProps & { id: string }) {
  const { ctx, schema, label, value, onChange, depth, id } = props;
  const branches = branchesOf(schema, ctx.root);
  const [picked, setPicked] = useState(() => pickBranch(branches, value, ctx.root));
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
            setPicked(next);
            onChange(initialValue(branches[next].schema, ctx.root, false, depth + 1));
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

type Control = {
  id: string;
  name: string;
  autoFocus?: boolean;
  "aria-required": boolean;
  "aria-invalid"?: boolean;
  "aria-describedby"?: string;
};

/** An enum or a boolean: "(unset)" leaves the field out; a value the list does not hold (typed
 * in the raw JSON) is shown as such rather than dropped. */
function Select({
  schema,
  kind,
  value,
  onChange,
  control,
}: Pick<FieldProps, "schema" | "value" | "onChange"> & { kind: Kind; control: Control }) {
  const options =
    kind === "boolean"
      ? [
          { value: true, label: "true" },
          { value: false, label: "false" },
        ]
      : (optionsOf(schema) ?? []);
  const index = options.findIndex((o) => sameDraft(o.value, value));
  const current = value === undefined ? "" : index >= 0 ? String(index) : "other";
  return (
    <select
      {...control}
      value={current}
      onChange={(e) => {
        const choice = e.target.value;
        if (choice !== "other") onChange(choice === "" ? undefined : options[Number(choice)].value);
      }}
    >
      <option value="">(unset)</option>
      {options.map((o, i) => (
        <option key={i} value={i}>
          {o.label}
        </option>
      ))}
      {current === "other" && <option value="other">{leafText("json", value)} (not in the list)</option>}
    </select>
  );
}

/** A text field. It keeps the text as typed ("1." on the way to "1.5") while that text still
 * means the draft's value, and shows the draft's value when it changed from elsewhere. */
function TextInput({
  kind,
  value,
  onChange,
  control,
}: {
  kind: Kind;
  value: Draft;
  onChange(v: Draft): void;
  control: Control;
}) {
  const [text, setText] = useState(() => leafText(kind, value));
  const shown = sameDraft(parseLeaf(kind, text), value) ? text : leafText(kind, value);
  return (
    <input
      {...control}
      className={kind === "json" ? "mono" : undefined}
      inputMode={kind === "number" || kind === "integer" ? "decimal" : undefined}
      placeholder={kind === "json" ? "JSON" : kind}
      value={shown}
      onChange={(e) => {
        setText(e.target.value);
        onChange(parseLeaf(kind, e.target.value));
      }}
    />
  );
}
