// The server questions waiting for the person, as the backend reports them: asked, declined at
// once for the per-connection limit, withdrawn (all declined, or the connection ended).
import { useCallback, useEffect, useState } from "react";
import { backend, errorText, type ServerQuestion } from "../ipc";

/** Of one connection: how many questions the backend declined at once, and its limit. */
export interface Declined {
  declined: number;
  limit: number;
}

export function useQuestions(onError: (message: string) => void) {
  // Oldest first.
  const [questions, setQuestions] = useState<ServerQuestion[]>([]);
  const [declined, setDeclined] = useState<Map<number, Declined>>(new Map());
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
      })
      .catch((e) => onError(errorText(e)));
    // Subscribed once: the window has one question channel.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  const remove = useCallback((qid: number) => setQuestions((all) => all.filter((q) => Number(q.qid) !== qid)), []);
  return { questions, declined, remove };
}
