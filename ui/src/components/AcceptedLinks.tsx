// The links the person accepted whose server may report them done (2025-11-25 URL elicitations
// carry an id; `notifications/elicitation/complete` names it). Each stays, with Open and its
// state, until dismissed; the server's report marks it done.
import type { AcceptedLink } from "./useQuestions";
import { LinkView } from "./LinkView";

export function AcceptedLinks({
  links,
  nameOf,
  onDismiss,
}: {
  links: AcceptedLink[];
  nameOf(conn: number): string;
  onDismiss(link: AcceptedLink): void;
}) {
  if (!links.length) return null;
  return (
    <section className="accepted-links" aria-label="Links you accepted">
      {links.map((l) => (
        <div key={`${l.conn}-${l.elicitation.elicitationId}`} className="accepted-link">
          <header>
            <span>
              {nameOf(l.conn)} asked: {l.elicitation.message}
            </span>
            <button type="button" onClick={() => onDismiss(l)}>
              Dismiss
            </button>
          </header>
          <LinkView conn={l.conn} elicitation={l.elicitation} awaitDone />
        </div>
      ))}
    </section>
  );
}
