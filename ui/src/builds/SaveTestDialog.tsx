// Save as test: a tool call and its result kept as a test of a suite file (`sonde test`), its
// expectations filled from what was seen and editable before saving. The file is chosen in a
// native dialog (an existing suite, or a new one); the core writes the test and checks that
// the suite still reads (`suite_append`).
import { useState } from "react";
import { backend, errorText, type CallOutcome, type JsonValue } from "../ipc";

interface Props {
  tool: string;
  args: JsonValue | null;
  outcome: CallOutcome;
  onSaved(words: string): void;
  onCancel(): void;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The first text block of a result, as seen. */
function firstText(result: unknown): string {
  const content = isObject(result) && Array.isArray(result.content) ? result.content : [];
  const text = content.find((b) => isObject(b) && b.type === "text" && typeof b.text === "string");
  return isObject(text) ? String(text.text) : "";
}

export function SaveTestDialog({ tool, args, outcome, onSaved, onCancel }: Props) {
  const result = isObject(outcome.result) ? outcome.result : {};
  const isError = result.isError === true;
  const structured = result.structuredContent;
  const [name, setName] = useState(`${tool} answers as it did`);
  const [checkError, setCheckError] = useState(true);
  const [text, setText] = useState(firstText(outcome.result).slice(0, 200));
  const [checkText, setCheckText] = useState(text !== "");
  const [structuredText, setStructuredText] = useState(
    structured === undefined ? "" : JSON.stringify(structured, null, 2),
  );
  const [checkStructured, setCheckStructured] = useState(structured !== undefined);
  const [checkSchema, setCheckSchema] = useState(outcome.check?.verdict === "valid");
  const [within, setWithin] = useState("1000");
  const [checkWithin, setCheckWithin] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  const save = async (existing: boolean) => {
    setError(null);
    let structuredValue: JsonValue | null = null;
    if (checkStructured) {
      try {
        structuredValue = JSON.parse(structuredText);
      } catch (e) {
        return setError(`The structured keys are not JSON: ${errorText(e)}`);
      }
    }
    const limit = Number(within);
    if (checkWithin && !(Number.isInteger(limit) && limit > 0)) {
      return setError("The time allowed is a whole number of milliseconds above zero");
    }
    setSaving(true);
    try {
      const saved = await backend.suiteAppend(
        {
          name,
          call: tool,
          args,
          expect: {
            isError: checkError ? isError : null,
            text: checkText ? text : null,
            structured: structuredValue,
            schema: checkSchema ? true : null,
            within_ms: checkWithin ? limit : null,
          },
        },
        existing,
      );
      if (saved) {
        const count = `${saved.tests} ${saved.tests === 1 ? "test" : "tests"}`;
        onSaved(`Added the test "${name}" to ${saved.path} (${count}): sonde test runs it.`);
      } else setSaving(false);
    } catch (e) {
      setError(errorText(e));
      setSaving(false);
    }
  };

  return (
    <div className="dialog-backdrop" onKeyDown={(e) => e.key === "Escape" && onCancel()}>
      <div className="dialog" role="dialog" aria-label="Save as test">
        <h2>Save as test</h2>
        <p className="muted">
          The call of <code>{tool}</code> with the arguments it was sent, and what its answer must hold. Untick what
          should not be checked; edit what may change.
        </p>
        <label>
          Name
          <input value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label className="check">
          <input type="checkbox" checked={checkError} onChange={(e) => setCheckError(e.target.checked)} />
          isError is {String(isError)}
        </label>
        <label className="check">
          <input type="checkbox" checked={checkText} onChange={(e) => setCheckText(e.target.checked)} />
          the text holds
        </label>
        <input
          aria-label="Expected text"
          value={text}
          disabled={!checkText}
          onChange={(e) => setText(e.target.value)}
        />
        {structured !== undefined && (
          <>
            <label className="check">
              <input type="checkbox" checked={checkStructured} onChange={(e) => setCheckStructured(e.target.checked)} />
              structuredContent has these keys and values
            </label>
            <textarea
              aria-label="Expected structured keys"
              className="mono"
              rows={4}
              value={structuredText}
              disabled={!checkStructured}
              onChange={(e) => setStructuredText(e.target.value)}
            />
          </>
        )}
        {outcome.check && (
          <label className="check">
            <input type="checkbox" checked={checkSchema} onChange={(e) => setCheckSchema(e.target.checked)} />
            structuredContent is valid against the outputSchema
          </label>
        )}
        <label className="check">
          <input type="checkbox" checked={checkWithin} onChange={(e) => setCheckWithin(e.target.checked)} />
          answered within this many ms
        </label>
        <input
          aria-label="Milliseconds allowed"
          type="number"
          min={1}
          value={within}
          disabled={!checkWithin}
          onChange={(e) => setWithin(e.target.value)}
        />
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <footer>
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
          <button type="button" disabled={saving || !name.trim()} onClick={() => void save(true)}>
            Add to a suite…
          </button>
          <button type="button" className="primary" disabled={saving || !name.trim()} onClick={() => void save(false)}>
            New suite…
          </button>
        </footer>
      </div>
    </div>
  );
}
