// One subscription to the backend's log stream for the whole window, shared by every view.
import { backend, type Entry } from "../ipc";

type Listener = (entries: Entry[], skipped: number) => void;

const listeners = new Set<Listener>();
let started: Promise<number> | null = null;
let count = 0;

/** Starts following once; resolves with how many entries the log holds now. */
export async function startStream(): Promise<number> {
  started ??= backend.logFollow((batch) => {
    const last = batch.entries.at(-1);
    if (last) count = Math.max(count, Number(last.seq) + 1);
    for (const l of listeners) l(batch.entries, Number(batch.skipped));
  });
  count = Math.max(count, await started);
  return count;
}

/** Calls `listener` with each batch of new entries until the returned function is called. */
export function onEntries(listener: Listener): () => void {
  listeners.add(listener);
  void startStream();
  return () => listeners.delete(listener);
}
