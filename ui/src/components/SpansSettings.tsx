// Settings → Traces: the OpenTelemetry collector the window sends its spans to, and how that is
// going, as the core reports it (looked at again each second while Settings is open): where the
// spans go, how many were sent and dropped, and why; or why none are sent.
import { useEffect, useState } from "react";
import { backend, type SpansView } from "../ipc";

/** The words for where the window's spans go, from what the core reports. */
export function spansWords(view: SpansView): string {
  if (view.problem) return `No spans are sent: ${view.problem}`;
  const s = view.status;
  if (!s) return "No spans are sent: name a collector to send them to.";
  const sent = `Sending spans to ${s.endpoint}: ${s.sent} sent`;
  if (Number(s.dropped) === 0) return sent;
  return `${sent}, ${s.dropped} dropped${s.trouble ? ` (${s.trouble})` : ""}`;
}

interface Props {
  /** The collector's URL as typed; empty for the environment's (or none). */
  endpoint: string;
  onEndpoint(text: string): void;
  /** The view read when Settings opened, or after a save (which mounts this anew). */
  view: SpansView;
}

export function SpansSettings({ endpoint, onEndpoint, view }: Props) {
  const [polled, setPolled] = useState<SpansView | null>(null);
  const now = polled ?? view;
  useEffect(() => {
    const timer = setInterval(() => backend.spansGet().then(setPolled, () => {}), 1000);
    return () => clearInterval(timer);
  }, []);
  return (
    <>
      <h3>Traces</h3>
      <p className="muted">
        Each request as an OpenTelemetry span, sent as it settles to a collector&apos;s /v1/traces over OTLP/HTTP. Left
        empty, the OTEL_EXPORTER_OTLP_ENDPOINT the window was started with is used, if any.
      </p>
      <label>
        Collector URL
        <input
          type="url"
          value={endpoint}
          placeholder={view.fromEnv ? "the environment's OTEL_EXPORTER_OTLP_ENDPOINT" : "http://127.0.0.1:4318"}
          onChange={(e) => onEndpoint(e.target.value)}
        />
      </label>
      <p role="status" aria-label="Spans">
        {spansWords(now)}
      </p>
    </>
  );
}
