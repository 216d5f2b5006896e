// The log streams: one subscription to the window's own session for the whole window, shared by
// every view, and one per past session a log view opens.
import { backend, type Entry } from "../ipc";

/** New entries, how many went by too fast to stream, and whether the log can grow no more. */
type Listener = (entries: Entry[], skipped: number, ended: boolean) => void;

const listeners = new Set<Listener>();
let started: Promise<number> | null = null;
let count = 0;

/** Starts following once; resolves with how many entries the log holds now. */
export async function startStream(): Promise<number> {
  started ??= backend.logFollow(null, (batch) => {
    const last = batch.entries.at(-1);
    if (last) count = Math.max(count, Number(last.seq) + 1);
    for (const l of listeners) l(batch.entries, Number(batch.skipped), batch.ended);
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

/**
 * Follows a past session opened read-only (it grows while another process writes it): each
 * batch goes to `listener` until `stop` is called. `held` resolves with how many entries it held
 * when the following began. (The core ends its side when the session is closed.)
 */
export function followPast(session: number, listener: Listener): { held: Promise<number>; stop(): void } {
  let live = true;
  const held = backend.logFollow(session, (batch) => {
    if (live) listener(batch.entries, Number(batch.skipped), batch.ended);
  });
  return { held, stop: () => void (live = false) };
}
