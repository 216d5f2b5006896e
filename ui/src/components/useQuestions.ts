// The server questions waiting for the person, as the backend reports them: asked, declined at
// once for the per-connection limit, withdrawn (all declined, or the connection ended); and the
// links the person accepted that the server may still report done. A question whose connection
// is no longer live (its line's state, from the core, left ready) is closed at once, whether or
// not the backend's withdrawal has arrived yet; every question closed unanswered is told in a
// note that says why.
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { backend, errorText, type ServerQuestion, type UrlElicitation } from "../ipc";
import { reasonOf, stateText, type Lines } from "../connections/lines";
import { markLinkCompleted } from "./links";

/** Of one connection: how many questions the backend declined at once, and its limit. */
export interface Declined {
  declined: number;
  limit: number;
}

/** A link the person accepted (a 2025-11-25 URL elicitation, with an id): the server may say
 * when the interaction behind it is done. */
export interface AcceptedLink {
  conn: number;
  elicitation: UrlElicitation;
}

/** A question as this hook keeps it: `withdrawn` holds the backend's reason once it withdrew it. */
type Kept = ServerQuestion & { withdrawn?: string };

/** `tell`: shows a note to the person (errors, and why questions closed); `lines`: every line's
 * state, as useConnections follows it. */
export function useQuestions(tell: (message: string) => void, lines: Lines) {
  // Oldest first.
  const [kept, setKept] = useState<Kept[]>([]);
  const [declined, setDeclined] = useState<Map<number, Declined>>(new Map());
  const [accepted, setAccepted] = useState<AcceptedLink[]>([]);
  // The questions already told, by qid; they leave `kept` when the next question comes.
  const told = useRef(new Set<number>());
  useEffect(() => {
    backend
      .serverRequestsFollow((e) => {
        if (e.event === "asked") setKept((all) => [...all.filter((q) => !told.current.has(Number(q.qid))), e.question]);
        if (e.event === "declined")
          setDeclined((all) => new Map(all).set(Number(e.conn), { declined: e.declined, limit: e.limit }));
        if (e.event === "withdrawn") {
          const gone = new Set(e.qids.map(Number));
          setKept((all) => all.map((q) => (gone.has(Number(q.qid)) ? { ...q, withdrawn: e.reason } : q)));
        }
        if (e.event === "link_completed") markLinkCompleted(Number(e.conn), e.elicitationId);
      })
      .catch((e) => tell(errorText(e)));
    // Subscribed once: the window has one question channel.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  // The questions closed unanswered (withdrawn, or of a connection that ended), each told once.
  const closed = useMemo(
    () => kept.filter((q) => q.withdrawn !== undefined || endOf(lines, Number(q.conn)) !== null),
    [kept, lines],
  );
  useEffect(() => {
    const fresh = closed.filter((q) => !told.current.has(Number(q.qid)));
    if (fresh.length === 0) return;
    for (const q of fresh) told.current.add(Number(q.qid));
    tell(closedNotes(fresh, lines).join(" "));
  }, [closed, lines, tell]);
  const questions: ServerQuestion[] = useMemo(() => kept.filter((q) => !closed.includes(q)), [kept, closed]);
  const remove = useCallback((qid: number) => setKept((all) => all.filter((q) => Number(q.qid) !== qid)), []);
  /** The person accepted `question`: a link with an id is kept, to show when the server says it is done. */
  const accept = useCallback((question: ServerQuestion) => {
    const elicitation = question.link;
    if (elicitation?.elicitationId != null)
      setAccepted((all) => [...all, { conn: Number(question.conn), elicitation }]);
  }, []);
  const dismiss = useCallback((link: AcceptedLink) => setAccepted((all) => all.filter((l) => l !== link)), []);
  return { questions, declined, remove, accepted, accept, dismiss };
}

/** How connection `conn` ended, in words, from its line's state; `null` while it is live (or
 * not known yet: the backend's withdrawal then says). */
export function endOf(lines: Lines, conn: number): string | null {
  const all = [...lines.values()];
  const own = all.find((l) => l.event.conn === conn);
  if (own) {
    const s = own.event.state;
    if (s.state === "ready" || s.state === "opening") return null;
    const reason = reasonOf(s);
    return `${stateText(s)}${reason ? `: ${reason}` : ""}`;
  }
  const next = all.find((l) => l.event.replaces === conn);
  return next ? `replaced by connection ${next.event.conn}` : null;
}

/** One note per connection for questions closed unanswered: the server, how its connection
 * ended (or the backend's reason, while it is live), and what was asked. */
export function closedNotes(closed: Kept[], lines: Lines): string[] {
  const byConn = new Map<number, Kept[]>();
  for (const q of closed) byConn.set(Number(q.conn), [...(byConn.get(Number(q.conn)) ?? []), q]);
  return [...byConn].map(([conn, qs]) => {
    const line = [...lines.values()].find((l) => l.event.conn === conn || l.event.replaces === conn);
    const name = line?.name ?? `connection ${conn}`;
    const one = qs.length === 1;
    const which = one ? `its question (${asked(qs[0])}) was` : `${qs.length} of its questions were`;
    const ended = endOf(lines, conn);
    return ended !== null
      ? `${name}'s connection ${conn} ended (${ended}) before ${which} answered; ${one ? "it is" : "they are"} closed.`
      : `${name}: ${which} closed unanswered: ${qs[0].withdrawn}.`;
  });
}

/** What a question asked, in a few words: its method, and an elicitation's message. */
function asked(q: ServerQuestion): string {
  const message = (q.params as { message?: unknown } | null)?.message;
  return typeof message === "string" ? `${q.method}: “${message}”` : q.method;
}
