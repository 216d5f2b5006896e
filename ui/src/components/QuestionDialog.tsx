// A server asking the person at the keyboard: an elicitation (a form generated from its
// requestedSchema, or in URL mode a link to open, then Accept, Decline or Cancel) or a sampling
// request (its messages, and a reply to write, then Send or Refuse). The oldest open question is
// shown; Enter submits, Escape cancels.
// It is a panel docked in the main area, not a modal over the window: a server that asks and
// asks must never cover the sidebar's Stop. It says how many more wait, how many the backend
// declined at once for its limit, and offers "Decline all from this server". It folds to its
// header (the question's first line and how many wait) to give the log its room; the form stays
// as typed while folded, and the fold is kept in the settings for the next question.
import { useState } from "react";
import { errorText, type JsonValue, type ServerQuestion } from "../ipc";
import { initialValue, problemsOf, toJson, type Draft, type Problem } from "../forms/schema";
import { SchemaForm } from "../forms/SchemaForm";
import { LinkView } from "./LinkView";
import { Problems } from "./Problems";
import type { Declined } from "./useQuestions";

export interface ServerAnswer {
  result: JsonValue | null;
  /** Set to refuse: the server gets a JSON-RPC error with these words. */
  refusal: string | null;
}

export function QuestionDialog({
  question,
  serverName,
  waiting,
  others,
  declined,
  onAnswer,
  onDeclineAll,
  folded = false,
  onFold,
}: {
  question: ServerQuestion;
  serverName: string;
  /** How many questions of this server wait, this one included. */
  waiting: number;
  /** How many questions of other servers wait after it. */
  others: number;
  declined?: Declined;
  onAnswer(a: ServerAnswer): Promise<void>;
  onDeclineAll(): Promise<void>;
  /** Shown as its header only. */
  folded?: boolean;
  onFold?(folded: boolean): void;
}) {
  const [error, setError] = useState<string | null>(null);
  const answer = async (a: ServerAnswer) => {
    try {
      await onAnswer(a);
    } catch (e) {
      setError(errorText(e));
    }
  };
  const params = (question.params ?? {}) as Record<string, JsonValue>;
  const gist =
    question.method === "elicitation/create"
      ? String(params.message ?? "").split("\n")[0]
      : question.method === "sampling/createMessage"
        ? "a model reply"
        : question.method;
  const body = `question-${String(question.qid)}`;
  return (
    <section
      className={folded ? "question-panel folded" : "question-panel"}
      role="dialog"
      aria-label="Server request"
      onKeyDown={(e) =>
        e.key === "Escape" &&
        question.method === "elicitation/create" &&
        answer({ result: { action: "cancel" }, refusal: null })
      }
    >
      <header>
        {onFold && (
          <button
            type="button"
            className="fold"
            aria-expanded={!folded}
            aria-controls={body}
            aria-label={folded ? "Show the question" : "Fold the question"}
            title={folded ? "Show the question" : "Fold the question to this line; the log gets its room"}
            onClick={() => onFold(!folded)}
          >
            {folded ? "▸" : "▾"}
          </button>
        )}
        <h2>{serverName} asks</h2>
        {folded && (
          <span className="gist" title={gist}>
            {gist}
          </span>
        )}
        <span className="muted" aria-label="Questions waiting">
          {waiting > 1 ? `1 of ${waiting} waiting from this server` : "the only question from this server"}
          {others > 0 && `; ${others} from other servers after it`}
        </span>
        <button
          type="button"
          onClick={() => onDeclineAll().catch((e) => setError(errorText(e)))}
          title="Decline every question this server has waiting"
        >
          Decline all from this server
        </button>
      </header>
      <div id={body} className="question-body" hidden={folded}>
        {declined && declined.declined > 0 && (
          <p className="warn" role="status" aria-label="Questions declined at once">
            {declined.declined} question{declined.declined > 1 ? "s" : ""} from this server declined at once: Sonde
            keeps at most {declined.limit} from one server waiting (each is noted in the wire log).
          </p>
        )}
        <Problems problems={question.problems} what={params.mode === "url" ? "the link" : "the requested form"} />
        {question.method === "elicitation/create" && params.mode === "url" ? (
          <LinkElicitation question={question} params={params} onAnswer={answer} />
        ) : question.method === "elicitation/create" ? (
          <Elicitation params={params} onAnswer={answer} />
        ) : question.method === "sampling/createMessage" ? (
          <Sampling params={params} onAnswer={answer} />
        ) : (
          <p>Sonde cannot answer {question.method}.</p>
        )}
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

function Elicitation({ params, onAnswer }: { params: Record<string, JsonValue>; onAnswer(a: ServerAnswer): void }) {
  const schema = params.requestedSchema ?? {};
  const [value, setValue] = useState<Draft>(() => initialValue(schema, schema, true));
  const [problems, setProblems] = useState<Problem[] | null>(null);
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        const found = problemsOf(schema, value);
        setProblems(found);
        if (found.length === 0)
          onAnswer({ result: { action: "accept", content: toJson(value) as JsonValue }, refusal: null });
      }}
    >
      <p className="question">{String(params.message ?? "")}</p>
      <SchemaForm schema={schema} value={value} onChange={setValue} problems={problems} autoFocus />
      {problems?.[0] && (
        <p className="error" role="alert">
          {problems[0].message}
        </p>
      )}
      <footer>
        <button type="button" onClick={() => onAnswer({ result: { action: "cancel" }, refusal: null })}>
          Cancel
        </button>
        <button type="button" onClick={() => onAnswer({ result: { action: "decline" }, refusal: null })}>
          Decline
        </button>
        <button type="submit" className="primary">
          Accept
        </button>
      </footer>
    </form>
  );
}

/** URL mode: the message, the link as the core read it, and the three answers. Accept tells the
 * server the person agreed to go to the link; it opens nothing (Open in browser does). */
function LinkElicitation({
  question,
  params,
  onAnswer,
}: {
  question: ServerQuestion;
  params: Record<string, JsonValue>;
  onAnswer(a: ServerAnswer): void;
}) {
  const conn = Number(question.conn);
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        // URL mode's accept carries no content.
        if (question.link) onAnswer({ result: { action: "accept" }, refusal: null });
      }}
    >
      <p className="question">{String(params.message ?? "")}</p>
      <p className="muted">The server asks you to open a link. Check where it goes before you open it:</p>
      {question.link && <LinkView conn={conn} elicitation={question.link} />}
      <p className="muted">
        Accept tells the server you agree to go there; it does not open the link. Decline says no; Cancel dismisses the
        question.
      </p>
      <footer>
        <button type="button" onClick={() => onAnswer({ result: { action: "cancel" }, refusal: null })}>
          Cancel
        </button>
        <button type="button" onClick={() => onAnswer({ result: { action: "decline" }, refusal: null })}>
          Decline
        </button>
        <button type="submit" className="primary" autoFocus disabled={!question.link}>
          Accept
        </button>
      </footer>
    </form>
  );
}

function Sampling({ params, onAnswer }: { params: Record<string, JsonValue>; onAnswer(a: ServerAnswer): void }) {
  const [reply, setReply] = useState("");
  const messages = (Array.isArray(params.messages) ? params.messages : []) as Array<Record<string, JsonValue>>;
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        onAnswer({
          result: {
            role: "assistant",
            content: { type: "text", text: reply },
            model: "sonde-user",
            stopReason: "endTurn",
          },
          refusal: null,
        });
      }}
    >
      <p className="muted">
        The server asks for a model reply{params.systemPrompt ? ` (system prompt: ${String(params.systemPrompt)})` : ""}
        . Write it yourself:
      </p>
      <ol className="messages">
        {messages.map((m, i) => {
          const content = m.content as Record<string, JsonValue> | null;
          return (
            <li key={i}>
              <strong>{String(m.role)}</strong>:{" "}
              {content && content.type === "text" ? String(content.text) : JSON.stringify(m.content)}
            </li>
          );
        })}
      </ol>
      <label>
        Reply
        <textarea autoFocus className="mono" rows={5} value={reply} onChange={(e) => setReply(e.target.value)} />
      </label>
      <footer>
        <button
          type="button"
          onClick={() => onAnswer({ result: null, refusal: "the user refused the sampling request" })}
        >
          Refuse
        </button>
        <button type="submit" className="primary">
          Send
        </button>
      </footer>
    </form>
  );
}
