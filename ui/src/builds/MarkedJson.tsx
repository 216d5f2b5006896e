// A JSON value pretty-printed, with the values a change or a difference is about marked (a key
// and everything under it), the first scrolled into view. The steps to each are the core's
// (`Definition.at`, `Difference.steps`: keys, and an array's elements by index); this only
// draws them.
import { useEffect, useRef, type ReactNode } from "react";
import type { JsonValue } from "../ipc";

interface Line {
  text: string;
  marked: boolean;
}

/** `value`'s lines, indented by two; `marks` is what is left of the paths to the marked values
 * that pass here; `marked` says an enclosing value is a marked one. */
export function jsonLines(
  value: JsonValue,
  marks: string[][],
  indent = "",
  prefix = "",
  suffix = "",
  marked = false,
  out: Line[] = [],
): Line[] {
  const here = marked || marks.some((m) => m.length === 0);
  const entries: [string, JsonValue][] | null = Array.isArray(value)
    ? value.map((v, i) => [String(i), v])
    : value !== null && typeof value === "object"
      ? Object.entries(value as Record<string, JsonValue>)
      : null;
  if (entries === null || entries.length === 0) {
    const text = entries === null ? JSON.stringify(value) : Array.isArray(value) ? "[]" : "{}";
    out.push({ text: `${indent}${prefix}${text}${suffix}`, marked: here });
    return out;
  }
  const [open, close] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
  out.push({ text: `${indent}${prefix}${open}`, marked: here });
  entries.forEach(([key, child], i) => {
    const onPath = marks.filter((m) => m.length > 0 && m[0] === key).map((m) => m.slice(1));
    const label = Array.isArray(value) ? "" : `${JSON.stringify(key)}: `;
    jsonLines(child, onPath, `${indent}  `, label, i < entries.length - 1 ? "," : "", here, out);
  });
  out.push({ text: `${indent}${close}${suffix}`, marked: here });
  return out;
}

export function MarkedJson({ value, marks, label }: { value: JsonValue; marks: string[][]; label: string }) {
  const first = useRef<HTMLDivElement>(null);
  const lines = jsonLines(value, marks);
  const firstMarked = lines.findIndex((l) => l.marked);
  useEffect(() => {
    first.current?.scrollIntoView({ block: "center" });
  }, [value, marks]);
  return (
    <pre className="marked-json" aria-label={label}>
      {lines.map((l, i) => (
        <div key={i} ref={i === firstMarked ? first : undefined} className={l.marked ? "changed" : undefined}>
          {l.text || " "}
        </div>
      ))}
    </pre>
  );
}

/** One side of a comparison: its heading, its value (null: the side has none, said in words)
 * and the places marked in it. */
export interface Pane {
  heading: ReactNode;
  /** The JSON view's name (`Old definition`, `Now answer`). */
  name: string;
  value: JsonValue | null;
  marks: string[][];
  missing?: string;
}

/** Two values side by side, each with its marked places: Diff's definitions, Replay's answers. */
export function SideBySide({ label, panes }: { label?: string; panes: Pane[] }) {
  return (
    <div className="diff-definitions" aria-label={label}>
      {panes.map((p) => (
        <div key={p.name}>
          <h4>{p.heading}</h4>
          {p.value !== null ? (
            <MarkedJson value={p.value} marks={p.marks} label={p.name} />
          ) : (
            <p className="muted">{p.missing}</p>
          )}
        </div>
      ))}
    </div>
  );
}
