// Each line's drift since its server's baseline, as the core compared it: checked once per line,
// at its first ready connection of a saved server, and shared by what shows it (the banner over
// the line when something changed, the Server panel's quiet line otherwise).
import { useEffect, useSyncExternalStore } from "react";
import { backend, errorText, type BaselineCheck, type ConnectionState } from "../ipc";

/** A line's check: the connection whose interface was compared, and what the core found; or
 * why it could not be compared. `acceptError` is why Accept failed, when it did. */
export type Drift = { conn: number; check: BaselineCheck; acceptError?: string } | { conn: number; error: string };

const drifts = new Map<number, Drift | "asking">();
const listeners = new Set<() => void>();

function set(line: number, drift: Drift | "asking") {
  drifts.set(line, drift);
  listeners.forEach((l) => l());
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The line's drift, checked at its first ready connection (of a saved server) by whichever
 * view of it mounts first; `null` until the core has answered. */
export function useDrift(line: ConnectionState): Drift | null {
  const { line: id, conn, state } = line.event;
  const ready = state.state === "ready";
  useEffect(() => {
    if (!ready || line.serverId === null || drifts.has(id)) return;
    set(id, "asking");
    backend.baselineCheck(conn, false).then(
      (check) => set(id, { conn, check }),
      (e) => set(id, { conn, error: errorText(e) }),
    );
  }, [ready, conn, id, line.serverId]);
  const drift = useSyncExternalStore(subscribe, () => drifts.get(id));
  return drift === undefined || drift === "asking" ? null : drift;
}

/** Makes the interface of the connection the line compared its server's baseline. */
export async function acceptDrift(line: number, drift: Drift & { check: BaselineCheck }) {
  try {
    set(line, { conn: drift.conn, check: await backend.baselineCheck(drift.conn, true) });
  } catch (e) {
    set(line, { ...drift, acceptError: `Not accepted: ${errorText(e)}` });
  }
}

/** When a baseline was kept, for people: "4 Dec, 18:04". */
export function when(keptAt: string): string {
  return new Date(keptAt).toLocaleString(undefined, {
    day: "numeric",
    month: "short",
    hour: "2-digit",
    minute: "2-digit",
  });
}

/** The drift in one quiet line, for the Server panel. */
export function driftWords(drift: Drift): string {
  if ("error" in drift) return `The interface was not compared with its baseline: ${drift.error}`;
  const { check } = drift;
  if (check.keptAt === null)
    return "Kept as the server's baseline at this connect: the next connect says what changed since.";
  if (check.keptNow) return "Accepted: this interface is now the server's baseline.";
  if (check.changes.length === 0) return `As its baseline of ${when(check.keptAt)}.`;
  return `Since its baseline of ${when(check.keptAt)}: ${check.brief} (the banner over the panels lists them).`;
}
