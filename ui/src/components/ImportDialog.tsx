// Import saved servers from an mcpServers config (Claude Desktop, Cursor) or a VS Code `servers`
// config, pasted whole. Bad JSON keeps the dialog open with the text as typed and the error.
import { useState } from "react";
import { errorText } from "../ipc";
import { FormFooter } from "./FormFooter";

export function ImportDialog({ onImport, onCancel }: { onImport(text: string): Promise<void>; onCancel(): void }) {
  const [text, setText] = useState("");
  const [error, setError] = useState<string | null>(null);
  return (
    <div className="dialog-backdrop" onKeyDown={(e) => e.key === "Escape" && onCancel()}>
      <form
        className="dialog"
        aria-label="Import servers"
        onSubmit={async (e) => {
          e.preventDefault();
          try {
            await onImport(text);
          } catch (err) {
            setError(errorText(err));
          }
        }}
      >
        <h2>Import servers</h2>
        <label>
          Paste an mcpServers config (Claude Desktop, Cursor) or a VS Code servers config
          <textarea
            autoFocus
            className="mono"
            rows={12}
            value={text}
            placeholder={
              '{"mcpServers": {"everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]}}}'
            }
            onChange={(e) => setText(e.target.value)}
          />
        </label>
        <p className="muted">
          Before anything is saved, a system dialog shows every entry&apos;s command line, working directory and
          environment variables, and asks you to confirm.
        </p>
        <FormFooter error={error} onCancel={onCancel} submit="Import" disabled={!text.trim()} />
      </form>
    </div>
  );
}
