// The in-memory backend's OAuth: one saved HTTP server that answers 401 until Sonde holds a token
// for it, and the flow the core runs then, step by step as `src/auth/progress.rs` reports it
// (discovery, registration, authorization waiting at a URL, token), with the credentials it
// leaves. The browser step has no browser here: a test (or a person at the console) completes
// it with `globalThis.sondeAuthorize(conn)`, or refuses it with
// `globalThis.sondeAuthorize(conn, "access_denied: …")`, which fails the step with those words.
// It follows the desktop backend's contract; it never holds a secret either.
import type { Backend, CredentialView, Flow, FlowStep, SavedServer, StepState } from "./backend";
import { backendError, blankServer } from "./backend";

/** The saved server the double protects with OAuth. */
export const OAUTH_SERVER: SavedServer = {
  ...blankServer(),
  id: "oauth",
  name: "OAuth server",
  url: "https://mcp.example.com/mcp",
};
const ISSUER = "https://login.example.com";
const SCOPE = "mcp:tools mcp:resources";

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
  const finishRunning = (flow: Flow, state: StepState): Flow => ({
    ...flow,
    steps: flow.steps.map((s, i) => (i === flow.steps.length - 1 && s.state.state === "running" ? { ...s, state } : s)),
  });
  const begin = (conn: number, server: string) =>
    change(conn, () => ({ conn, server, steps: [], waiting_at: null, over: false }));
  const step = (conn: number, step: FlowStep) =>
    change(conn, (f) => {
      const done = finishRunning(f, { state: "done" });
      return { ...done, waiting_at: null, steps: [...done.steps, { step, state: { state: "running" } }] };
    });
  const end = (conn: number, refusal: string | null) =>
    change(conn, (f) => ({
      ...finishRunning(f, refusal === null ? { state: "done" } : { state: "failed", reason: refusal }),
      waiting_at: null,
      over: true,
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
    const resource = new URL(server);
    begin(conn, server);
    note(conn, `${server} answered 401 Unauthorized (WWW-Authenticate: Bearer); authorizing`);
    step(conn, "discovery");
    note(conn, `discovery: ${resource.origin}/.well-known/oauth-protected-resource names ${ISSUER}`);
    await wait(STEP_MS);
    step(conn, "registration");
    const clientId = `sonde-memory-${nextClient++}`;
    note(conn, `registration: ${ISSUER}/register gave client ${clientId}`);
    await wait(STEP_MS);
    step(conn, "authorization");
    const query = new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: "http://127.0.0.1:53682/callback",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
      state: `memory-${conn}`,
      scope: SCOPE,
      resource: server,
    });
    const url = `${ISSUER}/authorize?${query}`;
    change(conn, (f) => ({ ...f, waiting_at: url }));
    note(conn, `authorization: the person is sent to ${url}; waiting for the redirect`);
    const refusal = await new Promise<string | null>((resolve) => redirects.set(conn, resolve));
    if (refusal !== null) {
      note(conn, `authorization failed: ${refusal}`);
      end(conn, refusal);
      throw refusal;
    }
    step(conn, "token");
    await wait(STEP_MS);
    credentials = [
      ...credentials.filter((c) => c.resource !== server),
      {
        resource: server,
        issuer: ISSUER,
        client_id: clientId,
        scope: SCOPE,
        expires_at: Math.floor(Date.now() / 1000) + 3600,
        refreshable: true,
      },
    ];
    note(conn, `token: ${ISSUER}/token gave an access token (expires in 3600 s) and a refresh token`);
    end(conn, null);
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
