// A server asking the person at the keyboard: an elicitation (a form generated from its
// requestedSchema, then Accept, Decline or Cancel) or a sampling request (its messages, and a
// reply to write, then Send or Refuse). The oldest open question is shown; Escape cancels.
import { useState } from "react";
import { errorText } from "../ipc";
import type { JsonValue, ServerQuestion } from "../ipc/bindings";
import { initialValue, problemsOf, toJson, type Draft, type Problem } from "../forms/schema";
import { SchemaForm } from "../forms/SchemaForm";

export interface ServerAnswer {
  result: JsonValue | null;
  /** Set to refuse: the server gets a JSON-RPC error with these words. */
  refusal: string | null;
}

export function QuestionDialog({
  question,
  serverName,
  onAnswer,
}: {
  question: ServerQuestion;
  serverName: string;
  onAnswer(a: ServerAnswer): Promise<void>;
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
  return (
    <div
      className="dialog-backdrop"
      onKeyDown={(e) =>
        e.key === "Escape" &&
        question.method === "elicitation/create" &&
        answer({ result: { action: "cancel" }, refusal: null })
      }
    >
      <div className="dialog" role="dialog" aria-label="Server request">
        <h2>{serverName} asks</h2>
        {question.method === "elicitation/create" ? (
          <Elicitation params={params} onAnswer={answer} />
        ) : question.method === "sampling/createMessage" ? (
          <Sampling params={params} onAnswer={answer} />
        ) : (
          <p>Sonde cannot answer {question.method}.</p>
        )}
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
      </div>
    </div>
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
