// One panel's failure stays in that panel: what broke is shown in its place, with the error's
// message and Try again, and the rest of the window keeps working (Stop included).
import { Component, type ReactNode } from "react";

interface Props {
  /** The panel, as the message names it: "tools panel", "wire log". */
  name: string;
  children: ReactNode;
}

export class ErrorBoundary extends Component<Props, { error: Error | null }> {
  state: { error: Error | null } = { error: null };

  static getDerivedStateFromError(error: unknown) {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    return (
      <div className="panel-failed" role="alert" aria-label={`The ${this.props.name} failed`}>
        <p className="error-title">
          The {this.props.name} failed and was set aside; the rest of the window still works.
        </p>
        <pre className="mono">{error.message || error.name}</pre>
        <button onClick={() => this.setState({ error: null })}>Try again</button>
      </div>
    );
  }
}
