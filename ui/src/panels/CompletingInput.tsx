// A text field that offers the server's completions as the person types (`completion/complete`
// through the core), debounced, with the other fields already filled as context. Arrow keys
// move through the suggestions, Enter or a click takes one, Escape closes them; without a
// suggestion open, Enter submits the form as usual.
import { useEffect, useRef, useState } from "react";
import { backend, errorText, type Completion, type CompletionRef } from "../ipc";

/** How long typing must pause before the server is asked. */
export const DEBOUNCE_MS = 250;

export function CompletingInput({
  conn,
  reference,
  name,
  value,
  context,
  enabled,
  onChange,
  label,
  required = false,
}: {
  conn: number;
  reference: CompletionRef;
  name: string;
  value: string;
  /** The other fields already filled. */
  context: Record<string, string>;
  /** False when the server does not declare completions: nothing is asked. */
  enabled: boolean;
  onChange(v: string): void;
  label: string;
  required?: boolean;
}) {
  const [offered, setOffered] = useState<Completion | null>(null);
  const [open, setOpen] = useState(false);
  const [at, setAt] = useState(-1);
  const [error, setError] = useState<string | null>(null);
  const asked = useRef(0);
  const contextKey = JSON.stringify(context);
  const [typed, setTyped] = useState(false);
  useEffect(() => {
    if (!enabled || !typed) return;
    const n = ++asked.current;
    const timer = setTimeout(() => {
      backend.complete(conn, reference, name, value, JSON.parse(contextKey)).then(
        (c) => {
          // A reply to an older keystroke is dropped.
          if (n !== asked.current) return;
          setOffered(c);
          setError(null);
          setOpen(c.values.length > 0);
          setAt(-1);
        },
        (e) => n === asked.current && setError(errorText(e)),
      );
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
    // The reference is compared by what it names.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [conn, JSON.stringify(reference), name, value, contextKey, enabled, typed]);
  const take = (v: string) => {
    onChange(v);
    setOpen(false);
    setTyped(false);
  };
  const values = offered?.values ?? [];
  const listId = `complete-${name}`;
  return (
    <label className="completing">
      <span>
        {label}
        {required && <span className="required"> *</span>}
      </span>
      <input
        value={value}
        aria-required={required}
        role="combobox"
        aria-expanded={open}
        aria-controls={listId}
        aria-autocomplete="list"
        onChange={(e) => {
          setTyped(true);
          onChange(e.target.value);
        }}
        onFocus={() => enabled && setTyped(true)}
        onBlur={() => setTimeout(() => setOpen(false), 150)}
        onKeyDown={(e) => {
          if (!open) return;
          if (e.key === "ArrowDown" || e.key === "ArrowUp") {
            e.preventDefault();
            const step = e.key === "ArrowDown" ? 1 : -1;
            setAt((i) => (i + step + values.length) % values.length);
          } else if (e.key === "Enter" && at >= 0) {
            e.preventDefault();
            take(values[at]);
          } else if (e.key === "Escape") {
            e.stopPropagation();
            setOpen(false);
          }
        }}
      />
      {open && (
        <ul className="suggestions" role="listbox" id={listId} aria-label={`Suggestions for ${name}`}>
          {values.map((v, i) => (
            <li key={v} role="option" aria-selected={i === at} onMouseDown={(e) => (e.preventDefault(), take(v))}>
              {v}
            </li>
          ))}
          {(offered?.hasMore || (offered?.total ?? 0) > values.length) && (
            <li className="muted" aria-disabled>
              {offered?.total ? `${offered.total} in all; ` : ""}type more to narrow them
            </li>
          )}
        </ul>
      )}
      {error && <small className="muted">No suggestions: {error}</small>}
    </label>
  );
}
