// Add or edit a saved server: a command line (with env and cwd) or a URL (with headers, secret
// ones never recorded), era, timeouts. Save with the name, the command line or the URL empty
// says so by each empty field and saves nothing; what was typed stays.
import { useEffect, useId, useState, type ReactNode } from "react";
import { backend, errorText, type HostProfile, type OnChange, type SavedServer } from "../ipc";
import { notSaved, serverProblems } from "../forms/server";
import { FormFooter } from "./FormFooter";

export function ServerDialog({
  server,
  onSave,
  onCancel,
}: {
  server: SavedServer;
  onSave(s: SavedServer): Promise<void>;
  onCancel(): void;
}) {
  const [draft, setDraft] = useState<SavedServer>(server);
  const [error, setError] = useState<string | null>(null);
  const set = (patch: Partial<SavedServer>) => setDraft((d) => ({ ...d, ...patch }));
  const [overHttp, setOverHttp] = useState(Boolean(server.url));
  // The hosts it can connect as, from the core's profiles (none where the backend has none).
  const [hosts, setHosts] = useState<HostProfile[]>([]);
  useEffect(() => {
    backend.hostsList().then(setHosts, () => setHosts([]));
  }, []);
  const headers = draft.headers ?? [];
  // After a Save that found empty fields, they are found again as the person types, so each
  // note goes once its field is filled.
  const [checked, setChecked] = useState(false);
  const found = checked ? serverProblems(draft, overHttp) : {};
  const id = useId();
  /** A field's ARIA ties to its note, and the note, when the field is empty. */
  const marked = (field: keyof typeof found) => ({
    id: `${id}-${field}-input`,
    "aria-invalid": found[field] ? true : undefined,
    "aria-describedby": found[field] ? `${id}-${field}` : undefined,
  });
  const note = (field: keyof typeof found) =>
    found[field] && (
      <small id={`${id}-${field}`} className="error field-problem">
        {found[field]}
      </small>
    );
  return (
    <div className="dialog-backdrop" onKeyDown={(e) => e.key === "Escape" && onCancel()}>
      <form
        className="dialog"
        aria-label={server.id ? "Edit server" : "New server"}
        onSubmit={async (e) => {
          e.preventDefault();
          const empty = serverProblems(draft, overHttp);
          if (notSaved(empty)) {
            setChecked(true);
            setError(null);
            const first = (["name", "command", "url"] as const).find((f) => empty[f]);
            if (first) document.getElementById(`${id}-${first}-input`)?.focus();
            return;
          }
          try {
            // Only the chosen kind of server is saved, so a URL never hides a stale command (nor
            // a Restart on change, which needs one).
            const roots = (draft.roots ?? []).map((r) => r.trim()).filter(Boolean);
            await onSave(
              overHttp
                ? { ...draft, roots, command: "", env: [], cwd: null, onChange: undefined }
                : { ...draft, roots, url: undefined, headers: [], oauth: undefined },
            );
          } catch (err) {
            setError(errorText(err));
          }
        }}
      >
        <h2>{server.id ? "Edit server" : "New server"}</h2>
        <label>
          Name
          <input autoFocus value={draft.name} onChange={(e) => set({ name: e.target.value })} {...marked("name")} />
        </label>
        {note("name")}
        <div className="segmented" role="radiogroup" aria-label="Server kind">
          <label>
            <input type="radio" name="kind" checked={!overHttp} onChange={() => setOverHttp(false)} /> Command (stdio)
          </label>
          <label>
            <input type="radio" name="kind" checked={overHttp} onChange={() => setOverHttp(true)} /> URL (HTTP)
          </label>
        </div>
        {overHttp ? (
          <>
            <label>
              URL
              <input
                className="mono"
                placeholder="http://127.0.0.1:3001/mcp"
                value={draft.url ?? ""}
                onChange={(e) => set({ url: e.target.value })}
                {...marked("url")}
              />
            </label>
            {note("url")}
            <fieldset>
              <legend>Headers (secret ones are sent but never recorded; Authorization and Cookie always are)</legend>
              <RowList
                rows={headers}
                onChange={(headers) => set({ headers })}
                blank={{ name: "", value: "", secret: false }}
                addLabel="Add header"
              >
                {(h, update) => (
                  <>
                    <input
                      aria-label="Header name"
                      className="mono"
                      value={h.name}
                      onChange={(e) => update({ name: e.target.value })}
                    />
                    <input
                      aria-label="Header value"
                      className="mono"
                      type={h.secret ? "password" : "text"}
                      value={h.value}
                      onChange={(e) => update({ value: e.target.value })}
                    />
                    <label className="inline">
                      <input
                        type="checkbox"
                        checked={h.secret}
                        onChange={(e) => update({ secret: e.target.checked })}
                      />{" "}
                      secret
                    </label>
                  </>
                )}
              </RowList>
            </fieldset>
            <OAuthFields oauth={draft.oauth ?? {}} onChange={(oauth) => set({ oauth })} />
          </>
        ) : (
          <>
            <label>
              Command line
              <input
                className="mono"
                placeholder="npx -y @modelcontextprotocol/server-everything stdio"
                value={draft.command}
                onChange={(e) => set({ command: e.target.value })}
                {...marked("command")}
              />
            </label>
            {note("command")}
            <label>
              Working directory
              <input className="mono" value={draft.cwd ?? ""} onChange={(e) => set({ cwd: e.target.value || null })} />
            </label>
            <fieldset>
              <legend>Environment (only PATH, HOME, USER, LOGNAME, SHELL, TERM, LANG pass through otherwise)</legend>
              <label className="inline">
                <input
                  type="checkbox"
                  checked={draft.inheritEnv ?? false}
                  onChange={(e) => set({ inheritEnv: e.target.checked })}
                />
                Inherit my whole environment (every variable Sonde has, then the ones below)
              </label>
              <RowList
                rows={draft.env}
                onChange={(env) => set({ env })}
                blank={{ key: "", value: "" }}
                addLabel="Add variable"
              >
                {(v, update) => (
                  <>
                    <input
                      aria-label="Variable"
                      className="mono"
                      value={v.key}
                      onChange={(e) => update({ key: e.target.value })}
                    />
                    <input
                      aria-label="Value"
                      className="mono"
                      type="password"
                      value={v.value}
                      onChange={(e) => update({ value: e.target.value })}
                    />
                  </>
                )}
              </RowList>
            </fieldset>
            <OnChangeFields
              value={draft.onChange ?? null}
              onChange={(onChange) => set({ onChange: onChange ?? undefined })}
            />
          </>
        )}
        <label>
          Roots offered to the server (one directory per line)
          <textarea
            className="mono"
            rows={2}
            value={(draft.roots ?? []).join("\n")}
            onChange={(e) => set({ roots: e.target.value.split("\n") })}
          />
        </label>
        <label className="inline">
          <input
            type="checkbox"
            checked={draft.restartOnExit ?? false}
            onChange={(e) => set({ restartOnExit: e.target.checked })}
          />
          Restart when it exits (waits 1 s, 2 s, 4 s … up to 60 s; stops after 5 exits within 2 minutes)
        </label>
        <label className="inline">
          <input type="checkbox" checked={draft.trace ?? false} onChange={(e) => set({ trace: e.target.checked })} />
          Start a trace for each request (a W3C traceparent in its _meta, so a server that traces with OpenTelemetry
          joins it)
        </label>
        <div className="grid">
          <label className="wide">
            Protocol era
            <select value={draft.era} onChange={(e) => set({ era: e.target.value as SavedServer["era"] })}>
              <option value="auto">auto (probe, then fall back)</option>
              <option value="legacy">legacy (2025-11-25)</option>
              <option value="modern">modern (2026-07-28)</option>
            </select>
          </label>
          <label className="wide">
            Connect as
            <select
              value={draft.host ?? ""}
              onChange={(e) => set({ host: e.target.value || undefined })}
              disabled={hosts.length === 0}
            >
              <option value="">Sonde (itself)</option>
              {hosts.map((h) => (
                <option key={h.name} value={h.name}>
                  {h.title} ({h.connects.protocolVersion}; replaces the era)
                </option>
              ))}
            </select>
          </label>
          <Millis
            label="Request timeout"
            min={1}
            fallback="60000"
            value={draft.timeoutMs}
            onChange={(v) => set({ timeoutMs: v })}
          />
          {!overHttp && (
            <>
              <Millis
                label="stdin grace"
                fallback="2000"
                value={draft.graceStdinMs}
                onChange={(v) => set({ graceStdinMs: v })}
              />
              <Millis
                label="SIGTERM grace"
                fallback="2000"
                value={draft.graceTermMs}
                onChange={(v) => set({ graceTermMs: v })}
              />
            </>
          )}
        </div>
        <FormFooter error={notSaved(found) ?? error} onCancel={onCancel} submit="Save" />
      </form>
    </div>
  );
}

/** A duration in milliseconds; left empty, the default shown greyed out applies. */
function Millis({
  label,
  value,
  fallback,
  min = 0,
  onChange,
}: {
  label: string;
  value: number | null;
  fallback: string;
  min?: number;
  onChange(v: number | null): void;
}) {
  return (
    <label>
      {label} (ms)
      <input
        type="number"
        min={min}
        value={value ?? ""}
        placeholder={fallback}
        onChange={(e) => onChange(e.target.value.trim() === "" ? null : Number(e.target.value))}
      />
    </label>
  );
}

/** Rows edited in place (headers, environment variables), each with Remove, and one Add button. */
function RowList<T>({
  rows,
  onChange,
  blank,
  addLabel,
  children,
}: {
  rows: T[];
  onChange(rows: T[]): void;
  blank: T;
  addLabel: string;
  children(row: T, update: (patch: Partial<T>) => void): ReactNode;
}) {
  return (
    <>
      {rows.map((row, i) => (
        <div className="env-row" key={i}>
          {children(row, (patch) => onChange(rows.map((x, j) => (j === i ? { ...x, ...patch } : x))))}
          <button type="button" onClick={() => onChange(rows.filter((_, j) => j !== i))}>
            Remove
          </button>
        </div>
      ))}
      <button type="button" onClick={() => onChange([...rows, blank])}>
        {addLabel}
      </button>
    </>
  );
}

type OAuth = NonNullable<SavedServer["oauth"]>;

/** The OAuth client a server's authorization server knows Sonde as, when the person registered
 * one there; left empty, Sonde registers itself where the server allows it. Folded unless set. */
function OAuthFields({ oauth, onChange }: { oauth: OAuth; onChange(o: OAuth): void }) {
  const field = (key: keyof OAuth) => ({
    className: "mono",
    value: oauth[key] ?? "",
    onChange: (e: React.ChangeEvent<HTMLInputElement>) => onChange({ ...oauth, [key]: e.target.value }),
  });
  // Open at first when something is set; the person folds and unfolds it after that.
  const [open] = useState(() => Object.values(oauth).some((v) => typeof v === "string" && v.trim() !== ""));
  return (
    <details className="oauth-fields" open={open}>
      <summary>OAuth client (only when the server's authorization server needs one registered beforehand)</summary>
      <label>
        Client ID
        <input {...field("clientId")} placeholder="Sonde registers itself when left empty" />
      </label>
      <label>
        Client secret (kept in servers.json, never recorded)
        <input {...field("clientSecret")} type="password" autoComplete="off" />
      </label>
      <label>
        Scopes
        <input {...field("scope")} placeholder="what the server asks for" />
      </label>
      <label>
        Client ID Metadata Document URL
        <input {...field("clientMetadataUrl")} placeholder="https://…/client-metadata.json" />
      </label>
    </details>
  );
}

/** Restart on change: off by default; on, the paths to watch, the globs that are no change and a
 * build command, each optional. One entry per line. */
function OnChangeFields({ value, onChange }: { value: OnChange | null; onChange(v: OnChange | null): void }) {
  const lines = (text: string) => text.split("\n");
  return (
    <fieldset>
      <legend>Restart on change</legend>
      <label className="inline">
        <input
          type="checkbox"
          checked={value !== null}
          onChange={(e) => onChange(e.target.checked ? { paths: [], ignore: [] } : null)}
        />
        Restart the server when its source changes (Sonde says what the change did to its interface)
      </label>
      {value && (
        <>
          <label>
            Paths to watch (one per line; none: the folder of the script or program the command names)
            <textarea
              className="mono"
              rows={2}
              value={value.paths.join("\n")}
              onChange={(e) => onChange({ ...value, paths: lines(e.target.value) })}
            />
          </label>
          <label>
            Files that are no change (globs, one per line; .gitignore&apos;d files, target/, node_modules/, __pycache__/
            and swap files already are)
            <textarea
              className="mono"
              rows={2}
              value={value.ignore.join("\n")}
              onChange={(e) => onChange({ ...value, ignore: lines(e.target.value) })}
            />
          </label>
          <label>
            Build command (run in the working directory before each restart; after a failed build the server is not
            restarted)
            <input
              className="mono"
              placeholder="make"
              value={value.build ?? ""}
              onChange={(e) => onChange({ ...value, build: e.target.value || undefined })}
            />
          </label>
        </>
      )}
    </fieldset>
  );
}
