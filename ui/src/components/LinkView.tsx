// A link a server asks the person to open (URL-mode elicitation), as the core read it: the whole
// URL with its host emphasised, the core's warnings, and Open, which hands it to the system
// browser only when clicked. Nothing here fetches the link or renders it as an anchor: the spec
// forbids pre-fetching, and a click must go through the backend, which opens only what the core
// allows (http and https).
import { useState } from "react";
import { backend, errorText, type UrlElicitation } from "../ipc";
import { useLinkCompleted } from "./links";

export function LinkView({
  conn,
  elicitation,
  awaitDone = false,
}: {
  conn: number;
  elicitation: UrlElicitation;
  /** Says whether the server has reported it done (`notifications/elicitation/complete`): for a
   * link the person accepted, or one a -32042 error listed. */
  awaitDone?: boolean;
}) {
  const { link, url } = elicitation;
  const [opened, setOpened] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const completed = useLinkCompleted(conn, elicitation.elicitationId);
  const shown = link.before + link.host + link.after;
  const open = async () => {
    setError(null);
    try {
      await backend.linkOpen(conn, url);
      setOpened(true);
    } catch (e) {
      setError(errorText(e));
    }
  };
  return (
    <div className="link-box" aria-label="Link to open">
      <p className="mono link-url" aria-label="The full URL">
        {link.before}
        <strong className="link-host" aria-label="Host">
          {link.host}
        </strong>
        {link.after}
      </p>
      {shown !== url && (
        <p className="muted">
          As the server wrote it: <span className="mono">{url}</span>
        </p>
      )}
      {link.warnings.length > 0 && (
        <ul className="problems" aria-label="Warnings about the link">
          {link.warnings.map((w, i) => (
            <li key={i}>⚠ {w}</li>
          ))}
        </ul>
      )}
      <div className="call-row">
        <button
          type="button"
          onClick={open}
          disabled={link.opens === null}
          title={link.opens === null ? "Sonde does not open this link" : `Open ${link.opens} in the system browser`}
        >
          Open in browser
        </button>
        {opened && <span className="muted">Opened in the system browser.</span>}
        {awaitDone &&
          elicitation.elicitationId !== null &&
          (completed ? (
            <span className="badge" role="status">
              The server says this is done
            </span>
          ) : (
            <span className="muted">Not reported done by the server yet.</span>
          ))}
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
