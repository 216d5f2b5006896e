// File → Settings: the window's theme (system, dark, light) and the sessions budget (how many
// sessions the sessions folder keeps, and how many bytes of them), as the settings file holds
// them, with what the folder holds now. A field left empty takes its default, shown as its
// placeholder. Saving prunes the folder to the new budget at once; the window says what went.
import { useEffect, useState } from "react";
import { backend, errorText, type SessionsBudget, type Theme } from "../ipc";
import { applyTheme } from "../theme";
import { formatSize } from "../log/format";
import { FormFooter } from "./FormFooter";

const MIB = 1024 * 1024;

interface Props {
  /** Saved: what pruning to the new budget removed, in words, or null. */
  onSaved(pruned: string | null): void;
  onCancel(): void;
}

/** A field's text as a whole number, null when empty; an error in words otherwise. */
function whole(text: string, what: string): number | null | string {
  if (!text.trim()) return null;
  const n = Number(text);
  return Number.isInteger(n) && n > 0 ? n : `${what} is a whole number above zero`;
}

export function SettingsDialog({ onSaved, onCancel }: Props) {
  const [budget, setBudget] = useState<SessionsBudget | null>(null);
  const [theme, setTheme] = useState<Theme | null>(null);
  const [keep, setKeep] = useState("");
  const [mib, setMib] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  // What the settings file holds fills the form when it comes; a choice made before it came (a
  // quick click on Light) is the user's and stays.
  useEffect(() => {
    backend.themeGet().then(
      (t) => setTheme((chosen) => chosen ?? t),
      (e) => setError(errorText(e)),
    );
    backend.sessionsBudgetGet().then(
      (b) => {
        setBudget(b);
        setKeep((typed) => typed || (b.settings.keep == null ? "" : String(b.settings.keep)));
        setMib(
          (typed) =>
            typed || (b.settings.maxBytes == null ? "" : String(Math.round(Number(b.settings.maxBytes) / MIB))),
        );
      },
      (e) => setError(errorText(e)),
    );
  }, []);

  const save = async () => {
    const k = whole(keep, "The number of sessions");
    const m = whole(mib, "The size");
    if (typeof k === "string") return setError(k);
    if (typeof m === "string") return setError(m);
    setSaving(true);
    try {
      if (theme) applyTheme(await backend.themeSet(theme));
      const saved = await backend.sessionsBudgetSet({ keep: k, maxBytes: m === null ? null : m * MIB });
      onSaved(saved.pruned);
    } catch (e) {
      setError(errorText(e));
      setSaving(false);
    }
  };

  return (
    <div className="dialog-backdrop" onKeyDown={(e) => e.key === "Escape" && onCancel()}>
      <form
        className="dialog settings-dialog"
        role="dialog"
        aria-label="Settings"
        // Sonde says what is wrong with a value, in its words, rather than the browser's bubble.
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <h2>Settings</h2>
        <fieldset className="segmented" aria-label="Theme">
          <legend>Theme</legend>
          {(["system", "dark", "light"] as const).map((t) => (
            <label key={t}>
              <input type="radio" name="theme" checked={theme === t} onChange={() => setTheme(t)} />
              {t === "system" ? "System (as the desktop prefers)" : t === "dark" ? "Dark" : "Light"}
            </label>
          ))}
        </fieldset>
        <h3>Sessions</h3>
        <p className="muted">
          Every session is recorded in the sessions folder. When it outgrows this budget the oldest sessions go first,
          never a pinned one (pin one in Open Session) or one still being written.
        </p>
        {budget && (
          <p aria-label="Sessions folder">
            The folder holds {budget.sessions} sessions, {formatSize(Number(budget.bytes))}, in{" "}
            <span className="mono">{budget.folder}</span>.
          </p>
        )}
        <label>
          Keep at most this many sessions
          <input
            type="number"
            min={1}
            value={keep}
            placeholder={budget ? `${budget.defaults.keep} (the default)` : ""}
            onChange={(e) => setKeep(e.target.value)}
          />
        </label>
        <label>
          and at most this many MiB of them
          <input
            type="number"
            min={1}
            value={mib}
            placeholder={
              budget
                ? `${Math.round(Number(budget.defaults.maxBytes) / MIB)} (the default: 2 GiB, or a tenth of the free space when less)`
                : ""
            }
            onChange={(e) => setMib(e.target.value)}
          />
        </label>
        <FormFooter error={error} onCancel={onCancel} submit="Save" disabled={!budget || !theme || saving} />
      </form>
    </div>
  );
}
