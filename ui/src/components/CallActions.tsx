// A tool call in the wire log, sent again from there: Edit and send puts it in the Tools panel of
// its line (the window's selected line, for a call of a past session) with its arguments in the
// form; Send again does the same and sends it at once, on the line's connection now. The core
// says whether an entry is such a call and which line it was made on.
import { useEffect, useState } from "react";
import { backend, type Entry, type LoggedCall, type SessionRef } from "../ipc";
import { useOpenCall } from "../layout/navigate";

export function CallActions({ entry, session }: { entry: Entry; session: SessionRef }) {
  const navigation = useOpenCall();
  const seq = Number(entry.seq);
  const isCall = entry.dir === "out" && entry.summary?.type === "request" && entry.summary.method === "tools/call";
  const [logged, setLogged] = useState<LoggedCall | null>(null);
  useEffect(() => {
    if (!isCall) return;
    let live = true;
    // An entry the core does not read as a call (a later round of one) offers nothing.
    backend.callAt(session, seq).then(
      (found) => live && setLogged(found),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [isCall, session, seq]);
  if (!navigation || !logged) return null;
  const line = session === null ? logged.line : navigation.selected;
  if (line === null || line === undefined) {
    return (
      <span className="muted">
        {session === null
          ? "Its server's card is gone: connect it again to send this call again."
          : "Select a server to send this call to it."}
      </span>
    );
  }
  const put = (send: boolean) =>
    navigation.openCall({ line, tool: logged.call.tool, args: logged.call.arguments ?? null, send });
  const where = session === null ? "" : " on the selected server";
  return (
    <>
      <button onClick={() => put(false)}>Edit and send{where}</button>
      <button onClick={() => put(true)}>Send again{where}</button>
    </>
  );
}
