// The server's stderr as a terminal (it is a pty), colours intact and not styled as errors.
import { useEffect, useRef, useState } from "react";
import { Terminal } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import { backend, type Entry } from "../ipc";
import { onEntries } from "../log/stream";
import { entryBytes } from "../log/format";

export function StderrPane({ conn }: { conn: number | null }) {
  const host = useRef<HTMLDivElement>(null);
  // Which connection has written anything: a silent server's pane says so instead of a blank.
  const [heardFrom, setHeardFrom] = useState<number | null>(null);
  const heard = heardFrom !== null && heardFrom === conn;
  useEffect(() => {
    if (!host.current || conn === null) return;
    const term = new Terminal({ convertEol: false, fontSize: 12, theme: { background: "#0b1220" }, scrollback: 10000 });
    term.open(host.current);
    let live = true;
    let shown = -1;
    const write = (e: Entry) => {
      if (e.kind === "stderr" && Number(e.conn) === conn && Number(e.seq) > shown) {
        shown = Number(e.seq);
        term.write(entryBytes(e));
        setHeardFrom(conn);
      }
    };
    const stop = onEntries((entries) => entries.forEach(write));
    backend
      .logPage(null, 0, Number.MAX_SAFE_INTEGER, `kind:stderr conn:${conn}`, 5000)
      .then((p) => live && p.entries.forEach(write));
    return () => {
      live = false;
      stop();
      term.dispose();
    };
  }, [conn]);
  if (conn === null) return <div className="empty">Select a connection to see its stderr.</div>;
  return (
    <div className="stderr-pane">
      {!heard && (
        <p className="muted stderr-silent" role="status">
          This server has written nothing on stderr yet.
        </p>
      )}
      <div className="stderr" ref={host} aria-label="stderr terminal" />
    </div>
  );
}
