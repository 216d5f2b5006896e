// A line's tasks as the core follows them: each with its status, message and times; the question
// it waits on (answered in the question dialog, like any server request); its result once done;
// and Cancel. A tool call that runs as a task appears here on its own: the core follows it.
import { useState } from "react";
import { backend, errorText, type ConnectionState, type TaskView } from "../ipc";
import { reasonOf, stateText } from "../connections/lines";
import { applyTask, durationText, statusText, timeText, useTasks } from "../tasks/tasks";
import { ErrorBoundary } from "../components/ErrorBoundary";
import { ResultView } from "./ResultView";

const nameOf = (v: TaskView) => v.tool ?? "task";

export function TasksPanel({ line }: { line: ConnectionState }) {
  const { conn, state } = line.event;
  const ready = state.state === "ready";
  const { tasks: followed, error: followError } = useTasks(conn);
  // What Refresh, Get and Cancel answered, merged by version with what the stream said.
  const [answered, setAnswered] = useState<readonly TaskView[]>([]);
  const tasks = answered.filter((v) => v.conn === conn).reduce(applyTask, followed);
  const [chosen, setChosen] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [listing, setListing] = useState(false);
  const learn = (views: TaskView[]) => setAnswered((a) => views.reduce(applyTask, a));
  const refresh = async () => {
    setError(null);
    setListing(true);
    try {
      learn(await backend.tasksList(conn));
    } catch (e) {
      setError(errorText(e));
    } finally {
      setListing(false);
    }
  };
  const shown = tasks.find((v) => v.task.taskId === chosen) ?? null;
  return (
    <div className="tasks">
      <div className="task-list">
        <header>
          <h2>Tasks</h2>
          <button onClick={refresh} disabled={!ready || listing}>
            {listing ? "Asking…" : "Refresh"}
          </button>
        </header>
        {!ready && (
          <p className="banner" role="status">
            Connection {conn} is not ready: {stateText(state)}
            {reasonOf(state) && ` (${reasonOf(state)})`}.
          </p>
        )}
        {(error ?? followError) && <p className="error">{error ?? followError}</p>}
        {tasks.length === 0 && (
          <p className="muted">
            No tasks on connection {conn}. A tool call the server runs as a task appears here and is followed to its
            result.
          </p>
        )}
        <ul aria-label="Tasks">
          {tasks.map((v) => (
            <li key={v.task.taskId} className={chosen === v.task.taskId ? "selected" : ""}>
              <button className="task" onClick={() => setChosen(v.task.taskId)}>
                <span className="task-status" data-status={v.task.status}>
                  {statusText(v.task.status)}
                </span>
                <strong>{nameOf(v)}</strong>
                <code title={v.task.taskId}>{v.task.taskId.slice(0, 12)}</code>
                <span className="desc">{v.task.statusMessage}</span>
                <span className="muted">updated {timeText(v.task.lastUpdatedAt)}</span>
              </button>
            </li>
          ))}
        </ul>
      </div>
      {shown ? (
        <ErrorBoundary key={shown.task.taskId} name={`task ${shown.task.taskId}`}>
          <TaskDetail view={shown} ready={ready} line={line.event.line} onAnswer={(v) => learn([v])} />
        </ErrorBoundary>
      ) : (
        <div className="empty">{tasks.length ? "Choose a task to see it." : null}</div>
      )}
    </div>
  );
}

function TaskDetail({
  view,
  ready,
  line,
  onAnswer,
}: {
  view: TaskView;
  ready: boolean;
  /** Where the result's resource links open. */
  line: number;
  onAnswer: (v: TaskView) => void;
}) {
  const { task } = view;
  const [busy, setBusy] = useState<"cancel" | "get" | null>(null);
  const [error, setError] = useState<string | null>(null);
  const ask = async (what: "cancel" | "get") => {
    setError(null);
    setBusy(what);
    try {
      onAnswer(await (what === "cancel" ? backend.taskCancel : backend.taskGet)(view.conn, task.taskId));
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(null);
    }
  };
  return (
    <div className="task-detail" aria-label={`Task ${task.taskId}`}>
      <header>
        <h2>{nameOf(view)}</h2>
        <span className="task-status" data-status={task.status}>
          {statusText(task.status)}
        </span>
        {view.following && <span className="muted">following</span>}
      </header>
      {task.statusMessage && <p className="task-message">{task.statusMessage}</p>}
      <dl className="task-facts">
        <dt>Task</dt>
        <dd>
          <code>{task.taskId}</code>
        </dd>
        <dt>Created</dt>
        <dd>{timeText(task.createdAt)}</dd>
        <dt>Updated</dt>
        <dd>{timeText(task.lastUpdatedAt)}</dd>
        <dt>Kept for</dt>
        <dd>{task.ttlMs === null ? "not limited or not said" : durationText(task.ttlMs)}</dd>
        <dt>Poll every</dt>
        <dd>{durationText(task.pollIntervalMs)}</dd>
      </dl>
      {task.status === "input_required" && (
        <p className="banner" role="status">
          The server needs an answer to go on. Its question is in the question dialog; the task carries on once it is
          answered.
        </p>
      )}
      <div className="call-row">
        {!task.terminal && (
          <button onClick={() => ask("cancel")} disabled={!ready || busy !== null}>
            {busy === "cancel" ? "Cancelling…" : "Cancel task"}
          </button>
        )}
        <button onClick={() => ask("get")} disabled={!ready || busy !== null}>
          {busy === "get" ? "Asking…" : "Ask the server now"}
        </button>
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {view.error && (
        <p className="error" role="alert">
          {view.error}
        </p>
      )}
      {task.status === "cancelled" && !view.outcome && <p className="muted">Cancelled: the task has no result.</p>}
      {view.outcome && (
        <ErrorBoundary name="task result">
          <ResultView outcome={view.outcome} line={line} />
        </ErrorBoundary>
      )}
    </div>
  );
}
