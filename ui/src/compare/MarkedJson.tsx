// A definition as pretty JSON, with the value a change is about marked (a key and everything
// under it), scrolled into view. The steps to it are the core's (`Definition.at`: keys, and an
// array's elements by index); this only draws them.
import { useEffect, useRef } from "react";
import type { JsonValue } from "../ipc";

interface Line {
  text: string;
  marked: boolean;
}

/** `value`'s lines, indented by two; `at` is what is left of the path to the marked value, or
 * null once off it; `marked` says an enclosing value is the marked one. */
export function jsonLines(
  value: JsonValue,
  at: string[] | null,
  indent = "",
  prefix = "",
  suffix = "",
  marked = false,
  out: Line[] = [],
): Line[] {
  const here = marked || (at !== null && at.length === 0);
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
    const onPath = at !== null && at.length > 0 && at[0] === key ? at.slice(1) : null;
    const label = Array.isArray(value) ? "" : `${JSON.stringify(key)}: `;
    jsonLines(child, onPath, `${indent}  `, label, i < entries.length - 1 ? "," : "", here, out);
  });
  out.push({ text: `${indent}${close}${suffix}`, marked: here });
  return out;
}

export function MarkedJson({ value, at, label }: { value: JsonValue; at: string[]; label: string }) {
  const first = useRef<HTMLDivElement>(null);
  const lines = jsonLines(value, at);
  const firstMarked = lines.findIndex((l) => l.marked);
  useEffect(() => {
    first.current?.scrollIntoView({ block: "center" });
  }, [value, at]);
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
