// The links (URL elicitations) the server has said are done, as the backend reports them
// (`link_completed`: the core matched `notifications/elicitation/complete` to a link the window
// waits for). One store for the window, so the question panel, the accepted links and the tools
// panel all show the same.
import { useSyncExternalStore } from "react";

const done = new Set<string>();
const listeners = new Set<() => void>();
let version = 0;

const key = (conn: number, id: string) => `${conn}\u0000${id}`;

export function markLinkCompleted(conn: number, id: string) {
  done.add(key(conn, id));
  version++;
  for (const l of listeners) l();
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

/** Whether connection `conn`'s server said link `id` is done; false for a link without an id. */
export function useLinkCompleted(conn: number, id: string | null): boolean {
  useSyncExternalStore(subscribe, () => version);
  return id !== null && done.has(key(conn, id));
}
