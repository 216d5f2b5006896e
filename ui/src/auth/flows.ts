// Each connection's latest authorization flow, as the core reports it, and the flow in words.
// Every word here is read from a `Flow`: its steps and their states, the URL it waits at, whether
// it is over. Nothing is inferred from time or from the connection's state.
import { useEffect, useState } from "react";
import { backend, errorText, type Flow, type FlowStep, type StepState } from "../ipc";

export type Flows = ReadonlyMap<number, Flow>;

/** `flows` with `flow` heard on the stream: a connection's newest flow replaces what it had
 * (a new flow of the same connection replaces the old one). */
export function applyFlow(flows: Flows, flow: Flow): Flows {
  return new Map(flows).set(flow.conn, flow);
}

/** `flows` (what the stream brought so far) with the snapshot the follow call resolved with.
 * The core listens for changes before it takes the snapshot, so a connection heard on the stream
 * already has its newest flow and keeps it; the snapshot fills in the others. */
export function applySnapshot(flows: Flows, snapshot: readonly Flow[]): Flows {
  const all = new Map(flows);
  for (const flow of snapshot) if (!all.has(flow.conn)) all.set(flow.conn, flow);
  return all;
}

/** Every connection's latest flow, live; and the error if they could not be followed. */
export function useAuthFlows(): { flows: Flows; error: string | null } {
  const [flows, setFlows] = useState<Flows>(new Map());
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    backend
      .authFlowsFollow((flow) => current && setFlows((all) => applyFlow(all, flow)))
      .then(
        (now) => current && setFlows((all) => applySnapshot(all, now)),
        (e) => current && setError(errorText(e)),
      );
    return () => {
      current = false;
    };
  }, []);
  return { flows, error };
}

/** Where a flow stands: waiting for the person, running, or over (done, failed at its last step,
 * or ended without a last step saying either). */
export type FlowOutcome = "waiting" | "running" | "done" | "failed" | "ended";

export function outcomeOf(flow: Flow): FlowOutcome {
  if (!flow.over) return flow.waiting_at !== null ? "waiting" : "running";
  const last = flow.steps.at(-1)?.state.state;
  return last === "done" || last === "failed" ? last : "ended";
}

/** Whether the window shows the flow's steps: while it runs, and when it failed. A done flow is
 * one line that opens to its steps. */
export const showsSteps = (flow: Flow) => !flow.over || outcomeOf(flow) === "failed";

const STEP_WORDS: Record<FlowStep, { name: string; what: string }> = {
  discovery: {
    name: "Discovery",
    what: "reading the server's protected-resource metadata and its authorization server's metadata",
  },
  registration: { name: "Registration", what: "registering Sonde as a client, or picking the client it has" },
  authorization: { name: "Authorization", what: "the person authorizes Sonde in the browser" },
  token: { name: "Token", what: "exchanging the authorization code for a token" },
  refresh: { name: "Refresh", what: "getting a new token with the refresh token" },
};

/** A step's name, as the log names it (capitalized). */
export const stepName = (step: FlowStep) => STEP_WORDS[step].name;
/** What a step does, in a sentence's worth of words. */
export const stepWhat = (step: FlowStep) => STEP_WORDS[step].what;

/** A step's state in words; `waiting` when the flow waits for the person at this running step.
 * A failure's reason is shown beside it, in the core's words. */
export function stepStateText(state: StepState, waiting: boolean): string {
  if (state.state === "running") return waiting ? "waiting for you in the browser" : "running";
  return state.state;
}

/** The server a flow is for, as a person reads it: the URL's host (the whole URL is its title). */
export function serverOf(flow: Flow): string {
  if (!flow.server) return "this server";
  try {
    return new URL(flow.server).host || flow.server;
  } catch {
    return flow.server;
  }
}

/** The flow in one line. */
export function flowHeadline(flow: Flow): string {
  const at = serverOf(flow);
  switch (outcomeOf(flow)) {
    case "waiting":
      return `Authorizing for ${at}: waiting for you`;
    case "running":
      return `Authorizing for ${at}`;
    case "done":
      return flow.steps.every((s) => s.step === "refresh") ? `Token for ${at} refreshed` : `Authorized for ${at}`;
    case "failed":
      return `Authorization for ${at} failed`;
    case "ended":
      return `Authorization for ${at} ended`;
  }
}
