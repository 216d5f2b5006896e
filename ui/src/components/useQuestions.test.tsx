// @vitest-environment happy-dom
import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { backend, type ConnectionState, type ConnState, type QuestionEvent, type ServerQuestion } from "../ipc";
import type { Lines } from "../connections/lines";
import { useQuestions } from "./useQuestions";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const lineOf = (line: number, conn: number, state: ConnState, replaces: number | null = null): ConnectionState =>
  ({ event: { version: 1, conn, line, replaces, state }, serverId: "e", name: "Everything" }) as ConnectionState;
const READY = { state: "ready", pid: 7, server: {} } as ConnState;
const KILLED = {
  state: "exited",
  reason: "server killed by SIGKILL",
  requested: false,
  words: { lines: [], minimalEnv: false, withheld: [] },
} as unknown as ConnState;
const linesOf = (...all: ConnectionState[]): Lines => new Map(all.map((l) => [l.event.line, l]));

const question = (qid: number, conn: number): ServerQuestion =>
  ({
    qid,
    conn,
    method: "elicitation/create",
    params: { message: "Please provide inputs for the following fields:", requestedSchema: {} },
    problems: [],
    link: null,
  }) as unknown as ServerQuestion;

let root: Root | null = null;
let hear: (e: QuestionEvent) => void = () => {};
const told: string[] = [];
const tell = (m: string) => void told.push(m);

function Questions({ lines }: { lines: Lines }) {
  const { questions } = useQuestions(tell, lines);
  return (
    <ul>
      {questions.map((q) => (
        <li key={String(q.qid)}>{String(q.qid)}</li>
      ))}
    </ul>
  );
}

function show(lines: Lines) {
  vi.spyOn(backend, "serverRequestsFollow").mockImplementation(async (handler) => void (hear = handler));
  const host = document.createElement("div");
  document.body.append(host);
  root = createRoot(host);
  act(() => root!.render(<Questions lines={lines} />));
  return {
    host,
    waiting: () => [...host.querySelectorAll("li")].map((li) => li.textContent),
    rerender: (next: Lines) => act(() => root!.render(<Questions lines={next} />)),
  };
}

afterEach(() => {
  act(() => root?.unmount());
  root = null;
  document.body.innerHTML = "";
  told.length = 0;
  vi.restoreAllMocks();
});

describe("a question whose connection ended", () => {
  it("closes as soon as its line's state leaves ready, with a note saying how it ended", async () => {
    const q = show(linesOf(lineOf(3, 3, READY), lineOf(4, 4, READY)));
    await act(async () => {});
    act(() => hear({ event: "asked", question: question(1, 3) }));
    act(() => hear({ event: "asked", question: question(2, 4) }));
    expect(q.waiting()).toEqual(["1", "2"]);
    q.rerender(linesOf(lineOf(3, 3, KILLED), lineOf(4, 4, READY)));
    expect(q.waiting()).toEqual(["2"]);
    expect(told).toEqual([
      "Everything's connection 3 ended (exited: server killed by SIGKILL) before its question " +
        "(elicitation/create: “Please provide inputs for the following fields:”) was answered; it is closed.",
    ]);
    // The backend's withdrawal that follows is not told again.
    act(() => hear({ event: "withdrawn", qids: [1], reason: "the connection ended" }));
    expect(told.length).toBe(1);
  });

  it("is told when the backend withdraws it first, and counts several; a restart names the new connection", async () => {
    const q = show(linesOf(lineOf(3, 3, READY)));
    await act(async () => {});
    act(() => {
      hear({ event: "asked", question: question(1, 3) });
      hear({ event: "asked", question: question(2, 3) });
    });
    // The withdrawal and the restarted line's state arrive together (one render).
    act(() => {
      hear({ event: "withdrawn", qids: [1, 2], reason: "the connection ended" });
      root!.render(<Questions lines={linesOf(lineOf(3, 8, READY, 3))} />);
    });
    expect(q.waiting()).toEqual([]);
    expect(told).toEqual([
      "Everything's connection 3 ended (replaced by connection 8) before 2 of its questions were answered; they are closed.",
    ]);
  });

  it("says the backend's reason when the connection is still live (Decline all)", async () => {
    const q = show(linesOf(lineOf(3, 3, READY)));
    await act(async () => {});
    act(() => hear({ event: "asked", question: question(1, 3) }));
    act(() => hear({ event: "withdrawn", qids: [1], reason: "declined all from this server" }));
    expect(q.waiting()).toEqual([]);
    expect(told).toEqual([
      "Everything: its question (elicitation/create: “Please provide inputs for the following fields:”) was " +
        "closed unanswered: declined all from this server.",
    ]);
  });
});
