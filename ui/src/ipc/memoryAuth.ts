// The in-memory backend's OAuth: one saved HTTP server that answers 401 until Sonde holds a token
// for it, and a flow played from canned.json's oauth: its steps as `src/auth/progress.rs` reports
// them (discovery, registration, authorization waiting at a URL, token), each with its note, and
// the credential it leaves. The browser step has no browser here: a test (or a person at the
// console) completes it with `globalThis.sondeAuthorize(conn)`, or refuses it with
// `globalThis.sondeAuthorize(conn, "access_denied: …")`, which fails the step with those words.
// It follows the desktop backend's contract; it never holds a secret either.
import type { Backend, CredentialView, Flow, FlowStep, SavedServer, StepState } from "./backend";
import { backendError, blankServer } from "./backend";
import canned from "./canned.json";
import { fill } from "./memoryTools";

const SCRIPT = canned.oauth;
/** The saved server the double protects with OAuth. */
export const OAUTH_SERVER: SavedServer = { ...blankServer(), ...SCRIPT.server };

/** How long each step the double runs by itself lasts: long enough for a test on a loaded
 * machine to see it running. */
const STEP_MS = 600;

type Calls = Pick<Backend, "authFlowsFollow" | "authOpen" | "credentialsList" | "credentialsForget">;

export interface MemoryAuth {
  calls: Calls;
  /** Whether the server at `url` answers 401 now: the protected server, with no token held. */
  challenges(url: string): boolean;
  /** Runs the flow connection `conn` meets at `server`; resolves once Sonde holds a token,
   * rejects with the words of the step that failed. */
  authorize(conn: number, server: string): Promise<void>;
}

/** `note` records a line in the connection's log, as the core records each exchange. */
export function memoryAuth(note: (conn: number, detail: string) => void): MemoryAuth {
  const flows = new Map<number, Flow>();
  const followers: ((flow: Flow) => void)[] = [];
  let credentials: CredentialView[] = [];
  // The flows waiting for the person, by connection: what the browser step's redirect brings.
  const redirects = new Map<number, (refusal: string | null) => void>();
  let nextClient = 1;
  const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

  // The table's operations, as progress.rs names them: every change goes to every follower.
  const change = (conn: number, edit: (flow: Flow) => Flow) => {
    const flow = edit(flows.get(conn) ?? { conn, server: "", steps: [], waiting_at: null, over: false });
    flows.set(conn, flow);
    for (const f of followers) f(flow);
  };
  /** The running step ends as `state`; `next` runs after it, or the flow is over. */
  const advance = (conn: number, state: StepState, next?: FlowStep) =>
    change(conn, (f) => ({
      ...f,
      steps: [
        ...f.steps.map((s, i) => (i === f.steps.length - 1 && s.state.state === "running" ? { ...s, state } : s)),
        ...(next ? [{ step: next, state: { state: "running" as const } }] : []),
      ],
      waiting_at: null,
      over: !next,
    }));

  Object.assign(globalThis, {
    sondeAuthorize: (conn: number, refusal?: string) => {
      const redirect = redirects.get(conn);
      if (!redirect) throw new Error(`connection ${conn} is not waiting for an authorization`);
      redirects.delete(conn);
      redirect(refusal ?? null);
      return true;
    },
  });

  const authorize = async (conn: number, server: string) => {
    const values = { server, conn, client: `sonde-memory-${nextClient++}`, url: "", refusal: "" };
    change(conn, () => ({ conn, server, steps: [], waiting_at: null, over: false }));
    note(conn, fill(SCRIPT.challenge, values));
    for (const step of SCRIPT.steps as { step: FlowStep; note: string; waitsAt?: string }[]) {
      advance(conn, { state: "done" }, step.step);
      if (!step.waitsAt) {
        note(conn, fill(step.note, values));
        await wait(STEP_MS);
        continue;
      }
      values.url = fill(step.waitsAt, values);
      change(conn, (f) => ({ ...f, waiting_at: values.url }));
      note(conn, fill(step.note, values));
      const refusal = await new Promise<string | null>((resolve) => redirects.set(conn, resolve));
      if (refusal !== null) {
        note(conn, fill(SCRIPT.refused, { refusal }));
        advance(conn, { state: "failed", reason: refusal });
        throw refusal;
      }
    }
    const expires_at = Math.floor(Date.now() / 1000) + 3600;
    const credential = { ...SCRIPT.credential, resource: server, client_id: values.client, expires_at };
    credentials = [...credentials.filter((c) => c.resource !== server), credential];
    advance(conn, { state: "done" });
  };

  return {
    challenges: (url) => url === OAUTH_SERVER.url && !credentials.some((c) => c.resource === url),
    authorize,
    calls: {
      authFlowsFollow: async (onFlow) => {
        followers.push(onFlow);
        return [...flows.values()];
      },
      authOpen: async (conn) => {
        const url = flows.get(conn)?.waiting_at;
        if (!url)
          throw backendError({ code: "bad_input", message: `connection ${conn} is not waiting for an authorization` });
        note(conn, `the person opened ${url} in the system browser (in-memory backend: recorded, not opened)`);
        return null;
      },
      credentialsList: async () => credentials,
      credentialsForget: async (resource) => {
        credentials = resource === null ? [] : credentials.filter((c) => c.resource !== resource);
        return credentials;
      },
    },
  };
}
