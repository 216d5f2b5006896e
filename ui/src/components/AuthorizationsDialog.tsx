// Authorizations: the servers Sonde holds tokens for (never a secret: the server, its
// authorization server and client, the scopes, when the token expires, whether it can be
// refreshed), each with Forget, and Forget all behind a confirmation. Escape closes the dialog,
// or the confirmation when it is open.
import { useEffect, useRef, useState } from "react";
import { backend, errorText, type CredentialView } from "../ipc";
import { expiryText, scopesOf } from "../auth/credentials";

interface Props {
  onClose(): void;
  /** Anything that may have changed the credentials (a flow's progress): the list is read again. */
  changes: unknown;
}

const nowSeconds = () => Date.now() / 1000;

export function AuthorizationsDialog({ onClose, changes }: Props) {
  const [list, setList] = useState<CredentialView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  // The time "expires in" is counted from, moved on every half minute.
  const [now, setNow] = useState(nowSeconds);
  // Where the focus goes after the next render, when the button that had it is gone or disabled:
  // a selector, the first match in the dialog taking it.
  const box = useRef<HTMLElement>(null);
  const refocus = useRef<string | null>(null);
  useEffect(() => {
    if (refocus.current === null) return;
    box.current?.querySelector<HTMLElement>(refocus.current)?.focus();
    refocus.current = null;
  });

  useEffect(() => {
    let current = true;
    backend.credentialsList().then(
      (l) => current && setList(l),
      (e) => current && setError(errorText(e)),
    );
    return () => {
      current = false;
    };
  }, [changes]);
  useEffect(() => {
    const tick = setInterval(() => setNow(nowSeconds()), 30_000);
    return () => clearInterval(tick);
  }, []);

  const forget = async (resource: string | null) => {
    setError(null);
    try {
      setList(await backend.credentialsForget(resource));
    } catch (e) {
      setError(errorText(e));
    }
    setConfirming(false);
    refocus.current = ".credentials button, button.close";
  };
  const keep = () => {
    setConfirming(false);
    refocus.current = "button.forget-all";
  };

  return (
    <div
      className="dialog-backdrop"
      onKeyDown={(e) => {
        if (e.key !== "Escape") return;
        e.stopPropagation();
        if (confirming) keep();
        else onClose();
      }}
    >
      <section
        ref={box}
        className="dialog authorizations-dialog"
        role="dialog"
        aria-modal="true"
        aria-label="Authorizations"
      >
        <h2>Authorizations</h2>
        <p className="muted">
          The servers Sonde holds tokens for. Forgetting one deletes its tokens and client; the next connection to it
          authorizes again in the browser.
        </p>
        {list === null && !error && <p className="muted">Reading the credentials…</p>}
        {list?.length === 0 && <p className="empty-line">Sonde holds no authorizations.</p>}
        {list && list.length > 0 && (
          <ul className="credentials" aria-label="Credentials">
            {list.map((c) => (
              <li key={c.resource} aria-label={c.resource}>
                <header>
                  <span className="mono credential-server">{c.resource}</span>
                  <button type="button" onClick={() => forget(c.resource)} aria-label={`Forget ${c.resource}`}>
                    Forget
                  </button>
                </header>
                <dl className="facts">
                  <dt>Issuer</dt>
                  <dd className="mono">{c.issuer}</dd>
                  <dt>Client</dt>
                  <dd className="mono">{c.client_id}</dd>
                  <dt>Scopes</dt>
                  <dd>
                    {scopesOf(c.scope).length ? (
                      scopesOf(c.scope).map((s) => (
                        <span key={s} className="badge scope">
                          {s}
                        </span>
                      ))
                    ) : (
                      <span className="muted">none given</span>
                    )}
                  </dd>
                  <dt>Token</dt>
                  <dd>
                    <span data-expired={c.expires_at !== null && c.expires_at <= now}>
                      {expiryText(c.expires_at, now)}
                    </span>
                    {" · "}
                    {c.refreshable ? <span>refreshable</span> : <span className="muted">not refreshable</span>}
                  </dd>
                </dl>
              </li>
            ))}
          </ul>
        )}
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        {confirming && (
          <div className="confirm-forget" role="alertdialog" aria-label="Forget all authorizations">
            <p>
              Forget all {list?.length} authorizations? Sonde will authorize again with each server the next time it
              connects.
            </p>
            <button type="button" className="danger" onClick={() => forget(null)}>
              Forget all
            </button>
            <button type="button" autoFocus onClick={keep}>
              Keep them
            </button>
          </div>
        )}
        <footer>
          <button
            type="button"
            className="forget-all"
            disabled={!list?.length || confirming}
            onClick={() => setConfirming(true)}
          >
            Forget all…
          </button>
          <button type="button" className="primary close" autoFocus onClick={onClose}>
            Close
          </button>
        </footer>
      </section>
    </div>
  );
}
