// The log streams: one subscription to the window's own session for the whole window, shared by
// every view, and one per past session a log view opens.
import { backend, type Entry, type LogBatch } from "../ipc";
import type { LogLength } from "../ipc/bindings";

/** New entries with their rows (null: the file did not take it), how many went by too fast to
 * stream, and whether the log can grow no more. */
type Listener = (entries: Entry[], rows: (number | null)[], skipped: number, ended: boolean) => void;

const listeners = new Set<Listener>();

/** Hands a batch to `listener` as plain numbers. */
function deliver(batch: LogBatch, listener: Listener) {
  const rows = batch.rows.map((r) => (r === null ? null : Number(r)));
  listener(batch.entries, rows, Number(batch.skipped), batch.ended);
}
let started: Promise<LogLength> | null = null;

/** Starts following once; resolves with how long the log is now (a view that joins the stream
 * later starts from there, and the batches after it say the rest). */
export async function startStream(): Promise<LogLength> {
  const first = !started;
  started ??= backend.logFollow(null, (batch) => {
    for (const l of listeners) deliver(batch, l);
  });
  const length = await started;
  return first ? length : backend.logLength(null);
}

/** Calls `listener` with each batch of new entries until the returned function is called. */
export function onEntries(listener: Listener): () => void {
  listeners.add(listener);
  void startStream();
  return () => listeners.delete(listener);
}

/**
 * Follows a past session opened read-only (it grows while another process writes it): each
 * batch goes to `listener` until `stop` is called. `held` resolves with how long it was when
 * the following began. (The core ends its side when the session is closed.)
 */
export function followPast(session: number, listener: Listener): { held: Promise<LogLength>; stop(): void } {
  let live = true;
  const held = backend.logFollow(session, (batch) => live && deliver(batch, listener));
  return { held, stop: () => void (live = false) };
}
