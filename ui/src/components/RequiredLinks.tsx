// A call the server refused until the person opens some links (-32042 URLElicitationRequired,
// 2025-11-25): the links as the core read them, each with Open and whether the server has said it
// is done, what is wrong with the list, and Send again, which sends the call as a new request
// once the person has finished (the server asked for it; nothing is sent by itself).
import type { LinksRequired } from "../ipc";
import { LinkView } from "./LinkView";
import { Problems } from "./Problems";

export function RequiredLinks({
  conn,
  required,
  canSend,
  onSendAgain,
}: {
  conn: number;
  required: LinksRequired;
  /** False while a call runs or the connection is not ready. */
  canSend: boolean;
  onSendAgain(): void;
}) {
  return (
    <section className="required-links" aria-label="Links the server requires">
      <p>
        The server needs you to open {required.elicitations.length === 1 ? "this link" : "these links"} before it can
        answer. Finish there, then send the call again.
      </p>
      {required.elicitations.map((e, i) => (
        <div key={e.elicitationId ?? i}>
          <p className="question">{e.message}</p>
          <LinkView conn={conn} elicitation={e} awaitDone />
        </div>
      ))}
      <Problems problems={required.problems} what="the list of links" />
      <button type="button" className="primary" disabled={!canSend} onClick={onSendAgain}>
        Send the call again
      </button>
    </section>
  );
}
