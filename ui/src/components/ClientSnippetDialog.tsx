// "Use with a client": the entry a client's config needs to run a saved server through `sonde
// proxy`, so every session that client has with it is recorded and can be read in this window.
// The text is the core's (the same edit `sonde wrap` makes to a config file); this dialog only
// shows it for the client chosen.
import { useEffect, useState } from "react";
import { backend, errorText, type SavedServer } from "../ipc";

const CLIENTS: [string, string, string][] = [
  ["claude-desktop", "Claude Desktop", "~/.config/Claude/claude_desktop_config.json"],
  ["cursor", "Cursor", "~/.cursor/mcp.json"],
  ["vscode", "VS Code", ".vscode/mcp.json in the workspace"],
  ["claude-code", "Claude Code", "~/.claude.json"],
];

export function ClientSnippetDialog({ server, onClose }: { server: SavedServer; onClose(): void }) {
  const [client, setClient] = useState(CLIENTS[0][0]);
  const [text, setText] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  // What Copy did, in words, until the entry shown changes.
  const [copied, setCopied] = useState<{ text: string; error: boolean } | null>(null);
  useEffect(() => {
    let live = true;
    backend
      .serverClientSnippet(server.id, client)
      .then((t) => live && (setText(t), setError(null), setCopied(null)))
      .catch((e) => live && (setText(null), setError(errorText(e))));
    return () => {
      live = false;
    };
  }, [server.id, client]);
  const where = CLIENTS.find(([id]) => id === client)?.[2];
  const copy = async (entry: string) => {
    try {
      await navigator.clipboard.writeText(entry);
      setCopied({ text: "Copied.", error: false });
    } catch (e) {
      setCopied({ text: `It could not be copied (${errorText(e)}); select it and copy it.`, error: true });
    }
  };
  return (
    <div className="dialog-backdrop" onKeyDown={(e) => e.key === "Escape" && onClose()}>
      <div className="dialog" role="dialog" aria-label="Use with a client">
        <h2>Use {server.name} with a client</h2>
        <label>
          Client{" "}
          <select autoFocus value={client} onChange={(e) => setClient(e.target.value)}>
            {CLIENTS.map(([id, name]) => (
              <option key={id} value={id}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <p className="muted">
          Put this entry in {where}. The client then starts the server through <code>sonde proxy</code>, and each of its
          sessions shows in File → Open Session as it happens. <code>sonde wrap --client {client} --write</code> makes
          the same change to the file (after a backup). Environment variables are not copied here: add them in the
          client&apos;s config.
        </p>
        {error && <p className="error">{error}</p>}
        {text && (
          <pre className="mono snippet" aria-label="Config entry">
            {text}
          </pre>
        )}
        <footer>
          {copied && (
            <span className={copied.error ? "error" : "muted"} role="status">
              {copied.text}
            </span>
          )}
          <button disabled={!text} onClick={() => text && void copy(text)}>
            Copy
          </button>
          <button onClick={onClose}>Close</button>
        </footer>
      </div>
    </div>
  );
}
