// The server questions waiting for the person, as the backend reports them: asked, declined at
// once for the per-connection limit, withdrawn (all declined, or the connection ended); and the
// links the person accepted that the server may still report done.
import { useCallback, useEffect, useState } from "react";
import { backend, errorText, type ServerQuestion, type UrlElicitation } from "../ipc";
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

export function useQuestions(onError: (message: string) => void) {
  // Oldest first.
  const [questions, setQuestions] = useState<ServerQuestion[]>([]);
  const [declined, setDeclined] = useState<Map<number, Declined>>(new Map());
  const [accepted, setAccepted] = useState<AcceptedLink[]>([]);
  useEffect(() => {
    backend
      .onServerRequest((e) => {
        if (e.event === "asked") setQuestions((all) => [...all, e.question]);
        if (e.event === "declined")
          setDeclined((all) => new Map(all).set(Number(e.conn), { declined: e.declined, limit: e.limit }));
        if (e.event === "withdrawn") {
          const gone = new Set(e.qids.map(Number));
          setQuestions((all) => all.filter((q) => !gone.has(Number(q.qid))));
        }
        if (e.event === "link_completed") markLinkCompleted(Number(e.conn), e.elicitationId);
      })
      .catch((e) => onError(errorText(e)));
    // Subscribed once: the window has one question channel.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  const remove = useCallback((qid: number) => setQuestions((all) => all.filter((q) => Number(q.qid) !== qid)), []);
  /** The person accepted `question`: a link with an id is kept, to show when the server says it is done. */
  const accept = useCallback((question: ServerQuestion) => {
    const elicitation = question.link;
    if (elicitation?.elicitationId != null)
      setAccepted((all) => [...all, { conn: Number(question.conn), elicitation }]);
  }, []);
  const dismiss = useCallback((link: AcceptedLink) => setAccepted((all) => all.filter((l) => l !== link)), []);
  return { questions, declined, remove, accepted, accept, dismiss };
}
