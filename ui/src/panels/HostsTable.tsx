// Each host beside the line's server: every listed tool under each host, ✓ where the host takes
// it, ✗ and why where it refuses it (a limit only reported is marked unconfirmed), what the
// host does not show, and the tools of other connected servers a host would name alike. The profiles and the verdicts are the core's (host profiles); nothing here
// judges a tool.
import { useState } from "react";
import { backend, errorText, type HostView } from "../ipc";

type Refusals = HostView["tools"][number]["refused"];

/** Each reason in the core's words, one only reported marked so. */
const words = (refused: Refusals) => refused.map((r) => (r.confirmed ? r.why : `${r.why} (unconfirmed)`)).join("; ");

export function HostsTable({ conn, ready }: { conn: number; ready: boolean }) {
  const [hosts, setHosts] = useState<HostView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const check = async () => {
    setBusy(true);
    setError(null);
    try {
      setHosts(await backend.hostsTable(conn));
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  const tools = hosts?.[0]?.tools.map((t) => t.tool) ?? [];
  return (
    <section aria-label="Hosts">
      <header>
        <h2>Hosts</h2>
        <button onClick={check} disabled={!ready || busy}>
          {busy ? "Listing tools…" : hosts ? "Check again" : "Check against the hosts"}
        </button>
      </header>
      {!hosts && !error && (
        <p className="muted">
          Lists the server&apos;s tools and judges each against every host&apos;s limits, as{" "}
          <code>sonde doctor --host</code> does: its name, the name the host gives it, its place past the host&apos;s
          tool count; and what each host does not show.
        </p>
      )}
      {error && <p className="error">{error}</p>}
      {hosts && (
        <>
          <table className="hosts" aria-label="Tools by host">
            <thead>
              <tr>
                <th>Tool</th>
                {hosts.map((h) => (
                  <th key={h.name}>{h.title}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {tools.map((tool, row) => (
                <tr key={`${row}-${tool}`}>
                  <td>
                    <code>{tool}</code>
                  </td>
                  {hosts.map((h) => {
                    const refused = h.tools[row]?.refused ?? [];
                    if (refused.length === 0)
                      return (
                        <td key={h.name} className="ok" aria-label={`${h.title} takes ${tool}`}>
                          ✓
                        </td>
                      );
                    const sure = refused.some((r) => r.confirmed);
                    return (
                      <td key={h.name} className={sure ? "bad" : "warn"} title={words(refused)}>
                        {sure ? "✗" : "⚠"} {refused.map((r) => r.limit).join(", ")}
                      </td>
                    );
                  })}
                </tr>
              ))}
              <tr>
                <td>Not shown</td>
                {hosts.map((h) => (
                  <td key={h.name} className={h.hidden.length ? "warn" : "ok"}>
                    {h.hidden.length
                      ? `${h.hidden.join(", ")}${h.showsConfirmed ? "" : " (unconfirmed)"}`
                      : "everything declared"}
                  </td>
                ))}
              </tr>
            </tbody>
          </table>
          {tools.length === 0 && <p className="muted">The server lists no tools.</p>}
          {hosts.some((h) => h.shadowed.length > 0) && (
            <ul className="host-reasons" aria-label="Tools of other servers with the same name">
              {hosts.flatMap((h) => h.shadowed.map((said, i) => <li key={`${h.name}-s${i}`}>⚠ {said}</li>))}
            </ul>
          )}
          <ul className="host-reasons" aria-label="Why hosts refuse tools">
            {hosts.flatMap((h) =>
              h.tools
                .filter((t) => t.refused.length > 0)
                .map((t, i) => (
                  <li key={`${h.name}-${i}`}>
                    <code>{t.tool}</code> in {h.title}: {words(t.refused)}
                  </li>
                )),
            )}
          </ul>
        </>
      )}
    </section>
  );
}
