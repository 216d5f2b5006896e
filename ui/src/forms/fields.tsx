// The schema form's leaf controls: a select for an enum or a boolean, a group of checkboxes for a
// multi-select enum, and a text field (a text area for JSON). Each shows what the draft holds,
// a value not among its choices included, rather than dropping it.
import { useState } from "react";
import { formatExample } from "./formats";
import { leafText, optionsOf, parseLeaf, sameDraft, type Draft, type Kind, type Option, type Schema } from "./schema";

export type Control = {
  id: string;
  name: string;
  autoFocus?: boolean;
  "aria-required": boolean;
  "aria-invalid"?: boolean;
  "aria-describedby"?: string;
};

interface LeafProps {
  schema: Schema;
  value: Draft;
  onChange(v: Draft): void;
  control: Control;
}

const BOOLEAN: Option[] = [
  { value: true, label: "true" },
  { value: false, label: "false" },
];

/** An enum or a boolean: "(unset)" leaves the field out; a value the list does not hold (typed
 * in the raw JSON) is shown as such rather than dropped. Titled values show their titles and
 * send their `const`. */
export function Select({ schema, kind, value, onChange, control }: LeafProps & { kind: Kind }) {
  const options = kind === "boolean" ? BOOLEAN : (optionsOf(schema) ?? []);
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

/** A multi-select enum as checkboxes, in the schema's order; what the draft holds that is not a
 * choice (typed in the raw JSON) stays, after the chosen ones, and is named under the boxes. */
export function Checks({ options, value, onChange, control }: Omit<LeafProps, "schema"> & { options: Option[] }) {
  const chosen = Array.isArray(value) ? (value as Draft[]) : [];
  const strangers = chosen.filter((v) => !options.some((o) => sameDraft(o.value, v)));
  const toggle = (i: number, on: boolean) => {
    const picked = options.filter((o, j) => (j === i ? on : chosen.some((v) => sameDraft(o.value, v))));
    const next = [...picked.map((o) => o.value), ...strangers];
    // None chosen leaves the field out, as "(unset)" does for a select.
    onChange(next.length ? next : undefined);
  };
  return (
    <>
      <div className="checks">
        {options.map((o, i) => (
          <label key={i} className="inline">
            <input
              type="checkbox"
              id={`${control.id}-${i}`}
              name={control.name}
              autoFocus={control.autoFocus && i === 0}
              aria-invalid={control["aria-invalid"]}
              aria-describedby={control["aria-describedby"]}
              checked={chosen.some((v) => sameDraft(o.value, v))}
              onChange={(e) => toggle(i, e.target.checked)}
            />
            {o.label}
          </label>
        ))}
      </div>
      {strangers.length > 0 && (
        <small className="warn">
          Also kept, not among the choices: {strangers.map((v) => JSON.stringify(v)).join(", ")}
        </small>
      )}
    </>
  );
}

/** How tall a JSON text area is for `text`: its lines, within bounds. */
const rowsFor = (text: string) => Math.min(10, Math.max(2, text.split("\n").length));

/** A text field. It keeps the text as typed ("1." on the way to "1.5") while that text still
 * means the draft's value, and shows the draft's value when it changed from elsewhere. JSON is
 * edited in a text area, as it may span lines. */
export function TextInput({ schema, kind, value, onChange, control }: LeafProps & { kind: Kind }) {
  const [text, setText] = useState(() => leafText(kind, value));
  const shown = sameDraft(parseLeaf(kind, text), value) ? text : leafText(kind, value);
  const change = (next: string) => {
    setText(next);
    onChange(parseLeaf(kind, next));
  };
  if (kind === "json")
    return (
      <textarea
        {...control}
        className="mono"
        rows={rowsFor(shown)}
        placeholder="JSON"
        value={shown}
        onChange={(e) => change(e.target.value)}
      />
    );
  const example = kind === "string" ? formatExample(schema.format) : undefined;
  return (
    <input
      {...control}
      inputMode={
        kind === "number" || kind === "integer"
          ? "decimal"
          : schema.format === "email"
            ? "email"
            : schema.format === "uri"
              ? "url"
              : undefined
      }
      placeholder={example ?? kind}
      value={shown}
      onChange={(e) => change(e.target.value)}
    />
  );
}
