// File → Settings: the window's theme (system, dark, light), the sessions budget (how many
// sessions the sessions folder keeps, and how many bytes of them) and the collector spans go to,
// as the settings file holds them, with what the folder holds now and how sending spans goes. A
// field left empty takes its default, shown as its placeholder. Saving prunes the folder to the new budget at once: when that removes sessions,
// Save asks first, listing them (and the ones kept because they were opened or replayed in the
// last hour); the window says what went.
import { useEffect, useState } from "react";
import {
  backend,
  errorText,
  type Pruned,
  type SessionsBudget,
  type SessionsSettings,
  type SpansView,
  type Theme,
} from "../ipc";
import { applyTheme } from "../theme";
import { formatSize } from "../log/format";
import { FormFooter } from "./FormFooter";
import { SpansSettings } from "./SpansSettings";

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
  const [spans, setSpans] = useState<SpansView | null>(null);
  const [endpoint, setEndpoint] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  // What Save would remove, shown for a yes before anything goes; with the settings it was asked for.
  const [asking, setAsking] = useState<{ settings: SessionsSettings; would: Pruned } | null>(null);

  // The form shows once the settings file and the folder are read, all at once: fields that
  // appeared one by one would move the theme's choices under the pointer (the dialog is centred).
  useEffect(() => {
    Promise.all([backend.themeGet(), backend.sessionsBudgetGet(), backend.spansGet()]).then(
      ([t, b, v]) => {
        setSpans(v);
        setEndpoint(v.setting ?? "");
        setTheme(t);
        setBudget(b);
        setKeep(b.settings.keep == null ? "" : String(b.settings.keep));
        setMib(b.settings.maxBytes == null ? "" : String(Math.round(Number(b.settings.maxBytes) / MIB)));
      },
      (e) => setError(errorText(e)),
    );
  }, []);

  const save = async (confirmed: boolean) => {
    const k = whole(keep, "The number of sessions");
    const m = whole(mib, "The size");
    if (typeof k === "string") return setError(k);
    if (typeof m === "string") return setError(m);
    const settings = { keep: k, maxBytes: m === null ? null : m * MIB };
    setSaving(true);
    setError(null);
    try {
      if (!confirmed) {
        const would = await backend.sessionsBudgetPreview(settings);
        if (would.removed.length > 0) {
          setAsking({ settings, would });
          setSaving(false);
          return;
        }
      }
      setAsking(null);
      // A collector's URL that cannot be used is said before anything is saved.
      if (spans && endpoint.trim() !== (spans.setting ?? "")) {
        setSpans(await backend.spansSet(endpoint.trim() || null));
      }
      if (theme) applyTheme(await backend.themeSet(theme));
      const saved = await backend.sessionsBudgetSet(settings);
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
          void save(false);
        }}
      >
        <h2>Settings</h2>
        {budget && theme && spans ? (
          <>
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
              Every session is recorded in the sessions folder. When it outgrows this budget the oldest sessions go
              first, never a pinned one (pin one in Open Session) or one still being written.
            </p>
            <p aria-label="Sessions folder">
              The folder holds {budget.sessions} {Number(budget.sessions) === 1 ? "session" : "sessions"},{" "}
              {formatSize(Number(budget.bytes))}, in <span className="mono">{budget.folder}</span>.
            </p>
            <label>
              Keep at most this many sessions
              <input
                type="number"
                min={1}
                value={keep}
                placeholder={`${budget.defaults.keep} (the default)`}
                onChange={(e) => setKeep(e.target.value)}
              />
            </label>
            <label>
              and at most this many MiB of them
              <input
                type="number"
                min={1}
                value={mib}
                placeholder={`${Math.round(Number(budget.defaults.maxBytes) / MIB)} (the default: 2 GiB, or a tenth of the free space when less)`}
                onChange={(e) => setMib(e.target.value)}
              />
            </label>
            {spans && (
              <SpansSettings key={spans.setting ?? ""} endpoint={endpoint} onEndpoint={setEndpoint} view={spans} />
            )}
          </>
        ) : (
          !error && <p className="muted">Reading the settings…</p>
        )}
        {asking ? (
          <div className="confirm" role="alertdialog" aria-label="Remove sessions?">
            <p>
              Saving this budget removes {asking.would.removed.length === 1 ? "this session" : "these sessions"} now,
              oldest first:
            </p>
            <ul className="mono" aria-label="Sessions to remove">
              {asking.would.removed.map((r) => (
                <li key={r.name}>
                  {r.name} ({formatSize(Number(r.size))})
                </li>
              ))}
            </ul>
            {asking.would.inUse.length > 0 && (
              <p aria-label="Sessions kept">
                Kept, though older: {asking.would.inUse.join(", ")} (opened or replayed in the last hour).
              </p>
            )}
            <button type="button" className="primary" disabled={saving} onClick={() => void save(true)}>
              Remove {asking.would.removed.length} and save
            </button>{" "}
            <button type="button" autoFocus onClick={() => setAsking(null)}>
              Back
            </button>
          </div>
        ) : (
          <FormFooter
            error={error}
            onCancel={onCancel}
            submit="Save"
            disabled={!budget || !theme || !spans || saving}
          />
        )}
      </form>
    </div>
  );
}
