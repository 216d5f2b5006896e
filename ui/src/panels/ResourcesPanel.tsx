// A line's resources and resource templates: the list page by page (or all at once), each item's
// name, title, URI, MIME type, size and annotations; a read rendered by kind; a form for a
// template's variables with the server's completions, expanded by the core (RFC 6570); a
// Subscribe toggle that shows each update as it arrives; and a resource a tool result linked to,
// read as soon as it is opened here (navigate.tsx). A list change refreshes the list.
import { useEffect, useRef, useState } from "react";
import { backend, errorText, type ConnectionState, type JsonValue, type Notice, type ReadView } from "../ipc";
import { ErrorBoundary } from "../components/ErrorBoundary";
import { Annotations } from "./Annotations";
import { CompletingInput } from "./CompletingInput";
import { ContentsView } from "./ContentsView";
import { bytes } from "./ImageView";
import { declares, NotReady, Stopped, str, useLine, type LineView } from "./line";
import { useResourceRequest } from "../layout/navigate";
import { useListChanges } from "./useListChanges";
import { formatTimeOfDay } from "../log/format";

type Chosen =
  | { kind: "resource"; item: JsonValue }
  | { kind: "template"; item: JsonValue }
  /** A resource a tool result linked to; `n` numbers the request. */
  | { kind: "link"; item: JsonValue; n: number };

const titleOf = (item: JsonValue) => str(item, "title") ?? str(item, "name") ?? str(item, "uri") ?? "(no name)";

export function ResourcesPanel({ line }: { line: ConnectionState }) {
  const view = useLine(line);
  const { conn, ready, server } = view;
  const [resources, setResources] = useState<JsonValue[] | null>(null);
  const [cursor, setCursor] = useState<JsonValue | null>(null);
  const [templates, setTemplates] = useState<JsonValue[] | null>(null);
  // Why a listing ended before the server's last page, when a cap of the core ended it.
  const [stopped, setStopped] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [chosen, setChosen] = useState<Chosen | null>(null);
  const [listed, setListed] = useState(0);
  const [busy, setBusy] = useState(false);
  // A link opened from a tool result replaces what was chosen, and is read at once.
  const { request, taken } = useResourceRequest(line.event.line);
  const [shownRequest, setShownRequest] = useState(0);
  if (request && request.n !== shownRequest) {
    setShownRequest(request.n);
    setChosen({ kind: "link", item: request.resource, n: request.n });
  }
  useEffect(() => {
    if (request) taken(request.n);
  }, [request, taken]);
  const offered = declares(server, "resources");
  // A list change the server announces lists again.
  useListChanges(conn, ready && offered, "resources", () => setListed((n) => n + 1));
  useEffect(() => {
    if (!ready || !offered) return;
    let current = true;
    backend.listPage(conn, "resources", null).then(
      (page) => {
        if (!current) return;
        setError(null);
        setResources(page.items);
        setCursor(page.nextCursor);
      },
      (e) => current && setError(errorText(e)),
    );
    backend.listAll(conn, "templates").then(
      (t) => current && (setTemplates(t.items), setStopped(t.stopped)),
      (e) => current && setError(errorText(e)),
    );
    return () => {
      current = false;
    };
  }, [conn, ready, offered, listed]);
  const more = async (all: boolean) => {
    setBusy(true);
    try {
      if (all) {
        const listing = await backend.listAll(conn, "resources");
        setResources(listing.items);
        setStopped(listing.stopped);
        setCursor(null);
      } else {
        const page = await backend.listPage(conn, "resources", cursor);
        setResources((r) => [...(r ?? []), ...page.items]);
        setCursor(page.nextCursor);
      }
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="tools">
      <div className="tool-list">
        <header>
          <h2>Resources</h2>
          <button onClick={() => setListed((n) => n + 1)} disabled={!ready}>
            Refresh
          </button>
        </header>
        <NotReady line={line} what="Reads" />
        {server && !offered && <p className="muted">The server does not declare the resources capability.</p>}
        {error && <p className="error">{error}</p>}
        {stopped && <Stopped why={stopped} />}
        {resources === null && !error && ready && offered && <p className="muted">Listing resources…</p>}
        <ul aria-label="Resources">
          {resources?.map((r, i) => (
            <li key={i} className={chosen?.item === r ? "selected" : ""}>
              <button className="tool" onClick={() => setChosen({ kind: "resource", item: r })}>
                <strong>{titleOf(r)}</strong>
                <code>{str(r, "uri")}</code>
                <span className="desc">{str(r, "description")}</span>
                <span className="badges">
                  {str(r, "mimeType") && <span className="badge">{str(r, "mimeType")}</span>}
                  {typeof (r as { size?: unknown }).size === "number" && (
                    <span className="badge">{bytes((r as { size: number }).size)}</span>
                  )}
                  <Annotations item={r} />
                </span>
              </button>
            </li>
          ))}
        </ul>
        {cursor !== null && (
          <div className="call-row">
            <button onClick={() => more(false)} disabled={busy || !ready}>
              Next page
            </button>
            <button onClick={() => more(true)} disabled={busy || !ready}>
              All pages
            </button>
          </div>
        )}
        {templates !== null && templates.length > 0 && <h3>Templates</h3>}
        <ul aria-label="Resource templates">
          {templates?.map((t, i) => (
            <li key={i} className={chosen?.item === t ? "selected" : ""}>
              <button className="tool" onClick={() => setChosen({ kind: "template", item: t })}>
                <strong>{titleOf(t)}</strong>
                <code>{str(t, "uriTemplate")}</code>
                <span className="desc">{str(t, "description")}</span>
              </button>
            </li>
          ))}
        </ul>
      </div>
      {chosen === null ? (
        <div className="empty">Choose a resource to read it, or a template to fill in.</div>
      ) : (
        <ErrorBoundary
          key={chosen.kind === "link" ? `link-${chosen.n}` : `${chosen.kind}-${JSON.stringify(chosen.item)}`}
          name="resource view"
        >
          {chosen.kind === "resource" ? (
            <ResourceRead view={view} item={chosen.item} />
          ) : chosen.kind === "link" ? (
            <ResourceRead view={view} item={chosen.item} linked />
          ) : (
            <TemplateForm view={view} item={chosen.item} />
          )}
        </ErrorBoundary>
      )}
    </div>
  );
}

/** Reads a URI (`first`: the read already made; `readNow`: read as soon as shown), and (when
 * the server offers it) follows its updates. */
function Reader({
  view,
  uri,
  first = null,
  readNow = false,
}: {
  view: LineView;
  uri: string;
  first?: ReadView | null;
  readNow?: boolean;
}) {
  const { conn, ready, server } = view;
  const [read, setRead] = useState<ReadView | null>(first);
  const [error, setError] = useState<string | null>(null);
  const [reading, setReading] = useState(false);
  const [updates, setUpdates] = useState<Notice[]>([]);
  const [subscribed, setSubscribed] = useState(false);
  const [subState, setSubState] = useState<string | null>(null);
  const doRead = async () => {
    setReading(true);
    setError(null);
    try {
      setRead(await backend.resourceRead(conn, uri));
    } catch (e) {
      setError(errorText(e));
    } finally {
      setReading(false);
    }
  };
  // Asked for from elsewhere (a link in a tool result): read once, when shown on a ready line.
  const readOnce = useRef(!readNow);
  useEffect(() => {
    if (readOnce.current || !ready) return;
    readOnce.current = true;
    void doRead();
    // doRead reads the current uri; a new ready connection is the reason to try again.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [ready]);
  useEffect(() => {
    if (!subscribed || !ready) return;
    let number: number | null = null;
    let gone = false;
    backend
      .subscribe(conn, { uris: [uri] }, (e) => {
        if (e.event === "acknowledged") setSubState("subscribed; the server acknowledged it");
        if (e.event === "change") {
          setUpdates((u) => [e.notice, ...u].slice(0, 50));
          doRead();
        }
        if (e.event === "ended") {
          setSubState(`not subscribed: ${e.reason}`);
          setSubscribed(false);
        }
      })
      .then(
        (n) => {
          number = n;
          if (gone) backend.unsubscribe(n);
          else setSubState((s) => (s === "subscribing…" ? "subscribed" : s));
        },
        (e) => {
          setSubState(`could not subscribe: ${errorText(e)}`);
          setSubscribed(false);
        },
      );
    return () => {
      gone = true;
      if (number !== null) backend.unsubscribe(number);
    };
    // doRead reads the current uri; it is not a reason to subscribe again.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [subscribed, ready, conn, uri]);
  const canSubscribe = declares(server, "resources.subscribe");
  return (
    <>
      <div className="call-row">
        <button className="primary" onClick={doRead} disabled={reading || !ready}>
          {reading ? "Reading…" : "Read"}
        </button>
        <label
          className="inline"
          title={
            canSubscribe
              ? "Ask the server for this resource's updates"
              : "The server does not declare resources.subscribe"
          }
        >
          <input
            type="checkbox"
            checked={subscribed}
            disabled={!ready || !canSubscribe}
            onChange={(e) => {
              setSubscribed(e.target.checked);
              setSubState(e.target.checked ? "subscribing…" : "not subscribed");
            }}
          />{" "}
          Subscribe to updates
        </label>
        {subState && (
          <span className="muted" role="status" aria-label="Subscription">
            {subState}
          </span>
        )}
      </div>
      {updates.length > 0 && (
        <ul className="updates" aria-label="Updates">
          {updates.map((u) => (
            <li key={u.seq}>
              {formatTimeOfDay(u.time)} {u.method} (read again)
            </li>
          ))}
        </ul>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {read && <ContentsView read={read} />}
    </>
  );
}

/** A listed resource, or (`linked`) one a tool result linked to, read at once. */
function ResourceRead({ view, item, linked = false }: { view: LineView; item: JsonValue; linked?: boolean }) {
  const uri = str(item, "uri");
  return (
    <div className="tool-call" aria-label={linked ? "Linked resource" : undefined}>
      <header>
        <h2>{titleOf(item)}</h2>
      </header>
      {linked && (
        <p className="muted">
          Opened from a resource link in a tool result: <code>{uri}</code>
        </p>
      )}
      <p className="muted">{str(item, "description")}</p>
      {uri === null ? (
        <p className="error">This resource has no URI to read.</p>
      ) : (
        <Reader view={view} uri={uri} readNow={linked} />
      )}
    </div>
  );
}

function TemplateForm({ view, item }: { view: LineView; item: JsonValue }) {
  const template = str(item, "uriTemplate");
  const [vars, setVars] = useState<string[] | null>(null);
  const [values, setValues] = useState<Record<string, string>>({});
  const [uri, setUri] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reading, setReading] = useState<{ uri: string; read: ReadView } | null>(null);
  const [busy, setBusy] = useState(false);
  const read = async () => {
    if (!uri) return;
    setBusy(true);
    try {
      setReading({ uri, read: await backend.resourceRead(view.conn, uri) });
      setError(null);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  useEffect(() => {
    if (template === null) return;
    backend.templateVariables(template).then(setVars, (e) => setError(errorText(e)));
  }, [template]);
  useEffect(() => {
    if (template === null || vars === null) return;
    backend.templateExpand(template, values).then(
      (u) => (setUri(u), setError(null)),
      (e) => setError(errorText(e)),
    );
  }, [template, vars, values]);
  if (template === null) return <p className="error">This template has no uriTemplate.</p>;
  const filled = (except: string) =>
    Object.fromEntries(Object.entries(values).filter(([k, v]) => k !== except && v !== ""));
  return (
    <div className="tool-call">
      <header>
        <h2>{titleOf(item)}</h2>
      </header>
      <p className="muted">
        <code>{template}</code> {str(item, "description")}
      </p>
      <form onSubmit={(e) => (e.preventDefault(), read())}>
        {vars?.map((v) => (
          <CompletingInput
            key={v}
            conn={view.conn}
            reference={{ type: "ref/resource", uri: template }}
            name={v}
            label={v}
            value={values[v] ?? ""}
            context={filled(v)}
            enabled={view.ready && declares(view.server, "completions")}
            onChange={(value) => setValues((all) => ({ ...all, [v]: value }))}
          />
        ))}
        <p aria-label="Expanded URI">
          URI: <code>{uri ?? "…"}</code>
        </p>
        <div className="call-row">
          <button type="submit" className="primary" disabled={!uri || !view.ready || busy}>
            {busy ? "Reading…" : "Read this URI"}
          </button>
        </div>
      </form>
      {error && <p className="error">{error}</p>}
      {reading && <Reader key={reading.uri} view={view} uri={reading.uri} first={reading.read} />}
    </div>
  );
}
