// A CallToolResult: every content kind, structuredContent with its outputSchema verdict, and
// isError shown as a tool error rather than a crash.
import type { CallOutcome } from "../ipc";

type Block = {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri: string; mimeType?: string; text?: string; blob?: string };
};

export function ResultView({ outcome }: { outcome: CallOutcome }) {
  const result = outcome.result as { content?: Block[]; structuredContent?: unknown; isError?: boolean };
  const check = outcome.check;
  return (
    <div className={`result ${result.isError ? "tool-error" : ""}`} aria-label="Tool result">
      {result.isError && <p className="error-title">The tool reported an error (isError: true)</p>}
      {(result.content ?? []).map((b, i) => (
        <div className="block" key={i}>
          {b.type === "text" && <pre className="mono">{b.text}</pre>}
          {b.type === "image" && <img alt="tool image" src={`data:${b.mimeType};base64,${b.data}`} />}
          {b.type === "audio" && <audio controls src={`data:${b.mimeType};base64,${b.data}`} />}
          {b.type === "resource_link" && (
            <p>
              Resource link: <code>{b.uri}</code> {b.name}
            </p>
          )}
          {b.type === "resource" && b.resource && (
            <div>
              <p>
                Embedded resource <code>{b.resource.uri}</code> {b.resource.mimeType}
              </p>
              {b.resource.text !== undefined ? (
                <pre className="mono">{b.resource.text}</pre>
              ) : (
                <p className="muted">{b.resource.blob?.length ?? 0} base64 characters</p>
              )}
            </div>
          )}
          {!["text", "image", "audio", "resource_link", "resource"].includes(b.type) && (
            <pre className="mono">{JSON.stringify(b, null, 2)}</pre>
          )}
        </div>
      ))}
      {result.structuredContent !== undefined && (
        <div className="block">
          <h4>structuredContent</h4>
          <pre className="mono">{JSON.stringify(result.structuredContent, null, 2)}</pre>
        </div>
      )}
      {check && (
        <p className={`verdict ${check.verdict}`}>
          {check.verdict === "valid" && "✓ structuredContent matches the outputSchema"}
          {check.verdict === "invalid" &&
            `✗ does not match the outputSchema: ${"errors" in check ? check.errors.join("; ") : ""}`}
          {check.verdict === "missing" && "✗ the tool has an outputSchema but the result has no structuredContent"}
          {check.verdict === "bad_schema" && `the outputSchema cannot be used: ${"error" in check ? check.error : ""}`}
        </p>
      )}
    </div>
  );
}
