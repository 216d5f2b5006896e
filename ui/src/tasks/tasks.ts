// A connection's tasks as the core follows them: the newest view of each task, kept by version
// (the snapshot and the stream overlap, so a view that arrives late never wins), in the order
// the tasks became known. Status, result and errors are the core's; this only keeps and words them.
import { useEffect, useState } from "react";
import { backend, errorText, type TaskStatus, type TaskView } from "../ipc";
import { formatDuration, formatTimeOfDay } from "../log/format";

/** `tasks` with `view` applied: each task keeps the newest version it has heard. */
export function applyTask(tasks: readonly TaskView[], view: TaskView): readonly TaskView[] {
  const at = tasks.findIndex((t) => t.conn === view.conn && t.task.taskId === view.task.taskId);
  if (at < 0) return [...tasks, view];
  if (tasks[at].version >= view.version) return tasks;
  return tasks.map((t, i) => (i === at ? view : t));
}

/** Every task of connection `conn`, live; and the error if they could not be followed. */
export function useTasks(conn: number): { tasks: readonly TaskView[]; error: string | null } {
  // Kept with the connection they belong to: a restarted line's panel shows the new one's tasks.
  const [held, setHeld] = useState<{ conn: number; tasks: readonly TaskView[] }>({ conn, tasks: [] });
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    const apply = (views: TaskView[]) =>
      setHeld((h) => ({ conn, tasks: views.reduce(applyTask, h.conn === conn ? h.tasks : []) }));
    backend
      .tasksFollow(conn, (v) => current && apply([v]))
      .then(
        (now) => current && apply(now),
        (e) => current && setError(errorText(e)),
      );
    return () => {
      current = false;
    };
  }, [conn]);
  return { tasks: held.conn === conn ? held.tasks : [], error };
}

const STATUS_WORDS: Record<TaskStatus, string> = {
  working: "working",
  input_required: "needs input",
  completed: "completed",
  failed: "failed",
  cancelled: "cancelled",
};

/** A status in words. */
export function statusText(status: TaskStatus): string {
  return STATUS_WORDS[status];
}

/** A time the server wrote (ISO 8601) as the local time of day, or as written when it does not
 * parse: the window never shows a time it made up. */
export function timeText(iso: string | null): string {
  return iso === null ? "not said" : formatTimeOfDay(iso);
}

/** A duration in milliseconds as a person reads it. */
export function durationText(ms: number | null): string {
  return ms === null ? "not said" : formatDuration(ms);
}
