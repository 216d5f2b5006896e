// Add or edit a saved server: one command line, an env table, cwd, era, timeouts.
import { useState } from "react";
import { errorText, type SavedServer } from "../ipc";

export function ServerDialog({ server, onSave, onCancel }: { server: SavedServer; onSave(s: SavedServer): Promise<void>; onCancel(): void }) {
  const [draft, setDraft] = useState<SavedServer>(server);
  const [error, setError] = useState<string | null>(null);
  const set = (patch: Partial<SavedServer>) => setDraft((d) => ({ ...d, ...patch }));
  const num = (v: string) => (v.trim() === "" ? null : Number(v));
  return (
    <div className="dialog-backdrop" onKeyDown={(e) => e.key === "Escape" && onCancel()}>
      <form
        className="dialog"
        aria-label={server.id ? "Edit server" : "New server"}
        onSubmit={async (e) => {
          e.preventDefault();
          try {
            await onSave(draft);
          } catch (err) {
            setError(errorText(err));
          }
        }}
      >
        <h2>{server.id ? "Edit server" : "New server"}</h2>
        <label>Name<input autoFocus value={draft.name} onChange={(e) => set({ name: e.target.value })} /></label>
        <label>
          Command line
          <input className="mono" placeholder="npx -y @modelcontextprotocol/server-everything stdio" value={draft.command} onChange={(e) => set({ command: e.target.value })} />
        </label>
        <label>Working directory<input className="mono" value={draft.cwd ?? ""} onChange={(e) => set({ cwd: e.target.value || null })} /></label>
        <fieldset>
          <legend>Environment (only PATH, HOME, USER, LOGNAME, SHELL, TERM, LANG pass through otherwise)</legend>
          {draft.env.map((v, i) => (
            <div className="env-row" key={i}>
              <input aria-label="Variable" className="mono" value={v.key} onChange={(e) => set({ env: draft.env.map((x, j) => (j === i ? { ...x, key: e.target.value } : x)) })} />
              <input aria-label="Value" className="mono" type="password" value={v.value} onChange={(e) => set({ env: draft.env.map((x, j) => (j === i ? { ...x, value: e.target.value } : x)) })} />
              <button type="button" onClick={() => set({ env: draft.env.filter((_, j) => j !== i) })}>Remove</button>
            </div>
          ))}
          <button type="button" onClick={() => set({ env: [...draft.env, { key: "", value: "" }] })}>Add variable</button>
        </fieldset>
        <div className="grid">
          <label>
            Protocol era
            <select value={draft.era} onChange={(e) => set({ era: e.target.value as SavedServer["era"] })}>
              <option value="auto">auto (probe, then fall back)</option>
              <option value="legacy">legacy (2025-11-25)</option>
              <option value="modern">modern (2026-07-28)</option>
            </select>
          </label>
          <label>Request timeout (ms)<input type="number" min={1} value={draft.timeoutMs ?? ""} placeholder="60000" onChange={(e) => set({ timeoutMs: num(e.target.value) })} /></label>
          <label>stdin grace (ms)<input type="number" min={0} value={draft.graceStdinMs ?? ""} placeholder="2000" onChange={(e) => set({ graceStdinMs: num(e.target.value) })} /></label>
          <label>SIGTERM grace (ms)<input type="number" min={0} value={draft.graceTermMs ?? ""} placeholder="2000" onChange={(e) => set({ graceTermMs: num(e.target.value) })} /></label>
        </div>
        {error && <p className="error" role="alert">{error}</p>}
        <footer>
          <button type="button" onClick={onCancel}>Cancel</button>
          <button type="submit" className="primary">Save</button>
        </footer>
      </form>
    </div>
  );
}
