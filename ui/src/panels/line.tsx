// What every server panel needs from its line: the connection requests go to, whether it is
// ready, and the server as its last ready connection described it (kept while the line is
// down, so what was read stays readable); and the banner that says when it is not ready, with
// the server's last words when it failed.
import { useContext, useState } from "react";
import type { ConnectionState, ServerDescription } from "../ipc";
import { reasonOf, stateText } from "../connections/lines";
import { LastWordsView } from "../components/LastWordsView";
import { LineFixes } from "../connections/fixes";

export interface LineView {
  conn: number;
  ready: boolean;
  server: ServerDescription | null;
}

export function useLine(line: ConnectionState): LineView {
  const { conn, state } = line.event;
  const ready = state.state === "ready";
  const [server, setServer] = useState<ServerDescription | null>(ready ? state.server : null);
  if (ready && state.server !== server) setServer(state.server);
  return { conn, ready, server };
}

/** Says the line's connection is not ready, and why, from the core's state; a server that
 * failed or exited also shows its last words here, in the main pane (its card is one line),
 * with the fixes that apply to its saved server. */
export function NotReady({ line, what }: { line: ConnectionState; what: string }) {
  const fixes = useContext(LineFixes);
  const { conn, state } = line.event;
  if (state.state === "ready") return null;
  const words = "words" in state && (state.words.lines.length > 0 || state.words.minimalEnv) ? state.words : null;
  const saved = line.serverId;
  return (
    <>
      <p className="banner" role="status">
        Connection {conn} is not ready: {stateText(state)}
        {reasonOf(state) && ` (${reasonOf(state)})`}. {what} wait for a ready connection.
      </p>
      {words && (
        <LastWordsView
          words={words}
          onAddEnv={saved !== null && fixes.addEnv ? (name) => fixes.addEnv?.(saved, name) : undefined}
          onEdit={saved !== null && fixes.edit ? () => fixes.edit?.(saved) : undefined}
          onShowStderr={fixes.showStderr && (() => fixes.showStderr?.(conn))}
        />
      )}
    </>
  );
}

/** Says a listing was cut short by one of the core's caps, in the core's words. */
export function Stopped({ why }: { why: string }) {
  return (
    <p className="banner" role="status">
      {why}. The list shows the first items only.
    </p>
  );
}

/** A capability the server declared, read from its description (`resources.subscribe`). */
export function declares(server: ServerDescription | null, path: string): boolean {
  let at: unknown = server?.capabilities;
  for (const key of path.split(".")) {
    if (typeof at !== "object" || at === null || !(key in at)) return false;
    at = (at as Record<string, unknown>)[key];
  }
  return at !== false && at !== undefined && at !== null;
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A field of a listed item when it is a string (servers send anything). */
export const str = (item: unknown, key: string): string | null =>
  isObject(item) && typeof item[key] === "string" ? (item[key] as string) : null;
