// The window's connection lines, as the core reports them: the newest state of each line, kept
// by version, so an event that arrives late (the snapshot and the stream overlap) never wins.
import { useEffect, useState } from "react";
import { backend, errorText, type ConnectionState, type ConnState } from "../ipc";

export type Lines = ReadonlyMap<number, ConnectionState>;

/** `lines` with `s` applied: a line keeps the newest version it has heard. */
export function applyState(lines: Lines, s: ConnectionState): Lines {
  const known = lines.get(s.event.line);
  if (known && known.event.version >= s.event.version) return lines;
  return new Map(lines).set(s.event.line, s);
}

/** Every line's newest state, live; and the error if the stream could not be followed. */
export function useConnections(): { lines: Lines; error: string | null } {
  const [lines, setLines] = useState<Lines>(new Map());
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    backend
      .connectionsFollow((s) => current && setLines((all) => applyState(all, s)))
      .then(
        (now) => current && setLines((all) => now.reduce(applyState, all)),
        (e) => current && setError(errorText(e)),
      );
    return () => {
      current = false;
    };
  }, []);
  return { lines, error };
}

/** A state's name, for styling and tests: an opening names its stage (`starting` however long). */
export function stateName(s: ConnState): string {
  if (s.state !== "opening") return s.state;
  return typeof s.stage === "object" ? "starting" : s.stage;
}

/** A state in words, from what the core said. */
export function stateText(s: ConnState): string {
  switch (s.state) {
    case "opening":
      return typeof s.stage === "object" ? `starting: no output yet, ${s.stage.starting} s` : s.stage;
    case "ready":
      return `ready · ${s.pid != null ? `pid ${s.pid}` : "HTTP"}`;
    case "stopping":
      return `stopping: ${s.step}`;
    case "failed":
      return "failed";
    case "exited":
      return s.requested ? "stopped" : "exited";
    case "waiting":
      return `restart attempt ${s.attempt} in ${seconds(s.wait_ms)}`;
    case "crash_loop":
      return `crash loop: ended ${s.exits} times; not restarting`;
  }
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** The reason a state carries, if any. */
export function reasonOf(s: ConnState): string | null {
  return "reason" in s ? s.reason : null;
}

/** Whether the line can be stopped (something is running or about to be). */
export const canStop = (s: ConnState) => s.state === "opening" || s.state === "ready" || s.state === "waiting";
/** Whether the line is over until someone starts it again. */
export const isFinal = (s: ConnState) => s.state === "failed" || s.state === "exited" || s.state === "crash_loop";
