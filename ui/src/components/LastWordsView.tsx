// What a server that failed to open last said on stderr, and the environment hint with its
// one-click fix. The lines and the withheld names come from the core; a variable's value is
// never shown, nor even read here: the backend adds it from Sonde's environment.
import type { LastWords } from "../ipc";

interface Props {
  words: LastWords;
  /** Adds `name` from Sonde's environment to the saved server; absent when there is no saved server. */
  onAddEnv?(name: string): void;
  /** Opens the saved server's dialog, where its environment table is. */
  onEdit?(): void;
  /** Shows the connection's stderr pane. */
  onShowStderr?(): void;
}

/** The variables Sonde passes to a server unless told otherwise (the core's `PASSED_THROUGH`). */
const PASSED = "PATH, HOME, USER, LOGNAME, SHELL, TERM, LANG";

export function LastWordsView({ words, onAddEnv, onEdit, onShowStderr }: Props) {
  return (
    <div className="last-words" onClick={(e) => e.stopPropagation()}>
      {words.lines.length > 0 && (
        <>
          <div className="heading">
            The server&apos;s last words on stderr
            {onShowStderr && (
              <button className="link" onClick={onShowStderr}>
                show in stderr
              </button>
            )}
          </div>
          <pre aria-label="The server's last words">{words.lines.join("\n")}</pre>
        </>
      )}
      {words.minimalEnv && (
        <div className="env-hint" role="note">
          Sonde started it with a minimal environment (only {PASSED}).{" "}
          {words.withheld.length > 0
            ? `It names ${words.withheld.join(", ")}, set in Sonde's environment but not passed.`
            : "If it needs a variable, add it to the server's environment table, or let it inherit yours."}
          <div className="actions">
            {onAddEnv &&
              words.withheld.map((name) => (
                <button key={name} className="primary" onClick={() => onAddEnv(name)}>
                  Add {name} from my environment
                </button>
              ))}
            {onEdit && <button onClick={onEdit}>Edit environment (or inherit mine)</button>}
          </div>
        </div>
      )}
    </div>
  );
}
