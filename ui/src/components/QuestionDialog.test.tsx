// @vitest-environment happy-dom
import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { backend, type ServerQuestion, type UrlElicitation } from "../ipc";
import { QuestionDialog, type ServerAnswer } from "./QuestionDialog";
import { markLinkCompleted } from "./links";
import { LinkView } from "./LinkView";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

/** A link as the core reads `https://accounts.example.com:pw@evil.example/login`
 * (src/url_elicitation.rs), its words copied. */
const SPOOF: UrlElicitation = {
  message: "Sign in to your account",
  url: "https://accounts.example.com:pw@evil.example/login",
  elicitationId: "e-1",
  link: {
    before: "https://accounts.example.com:pw@",
    host: "evil.example",
    after: "/login",
    opens: "https://accounts.example.com:pw@evil.example/login",
    warnings: [
      "The link carries a user name or password before the host: a server must not send credentials in an elicitation URL, and the text before @ can pass for another host. The host is the emphasised part.",
    ],
  },
};

const question = (link: UrlElicitation | null, params: Record<string, unknown>): ServerQuestion =>
  ({ qid: 1, conn: 7, method: "elicitation/create", params, problems: [], link }) as unknown as ServerQuestion;

let root: Root | null = null;

function show(q: ServerQuestion) {
  const answers: ServerAnswer[] = [];
  const host = document.createElement("div");
  document.body.append(host);
  root = createRoot(host);
  act(() =>
    root!.render(
      <QuestionDialog
        question={q}
        serverName="Everything"
        waiting={1}
        others={0}
        onAnswer={async (a) => void answers.push(a)}
        onDeclineAll={async () => {}}
      />,
    ),
  );
  return { host, answers };
}

const button = (host: HTMLElement, text: string) =>
  [...host.querySelectorAll("button")].find((b) => b.textContent === text)!;

afterEach(() => {
  act(() => root?.unmount());
  root = null;
  document.body.innerHTML = "";
  vi.restoreAllMocks();
});

describe("a URL-mode elicitation in the question panel", () => {
  it("shows the message and the full URL with the real host emphasised, and the core's warning", () => {
    const { host } = show(question(SPOOF, { mode: "url", message: SPOOF.message, url: SPOOF.url }));
    expect(host.textContent).toContain("Sign in to your account");
    const url = host.querySelector("[aria-label='The full URL']")!;
    expect(url.textContent).toBe("https://accounts.example.com:pw@evil.example/login");
    const emphasised = url.querySelector("strong.link-host")!;
    expect(emphasised.textContent).toBe("evil.example");
    const warnings = host.querySelector("[aria-label='Warnings about the link']")!;
    expect(warnings.textContent).toContain("user name or password before the host");
    // Nothing in the panel is a clickable anchor: the link opens only through the backend.
    expect(host.querySelectorAll("a").length).toBe(0);
  });

  it("opens the link only when Open is clicked, and Accept answers without content", async () => {
    const open = vi.spyOn(backend, "linkOpen").mockResolvedValue(null);
    const { host, answers } = show(question(SPOOF, { mode: "url", message: SPOOF.message, url: SPOOF.url }));
    expect(open).not.toHaveBeenCalled();
    await act(async () => button(host, "Open in browser").click());
    expect(open).toHaveBeenCalledWith(7, SPOOF.url);
    expect(host.textContent).toContain("Opened in the system browser.");
    expect(answers).toEqual([]);
    // Enter submits the form: Accept, with no content in URL mode.
    await act(async () => host.querySelector("form")!.requestSubmit());
    expect(answers).toEqual([{ result: { action: "accept" }, refusal: null }]);
  });

  it("answers Decline and Cancel, and Escape cancels", async () => {
    const { host, answers } = show(question(SPOOF, { mode: "url", message: SPOOF.message, url: SPOOF.url }));
    await act(async () => button(host, "Decline").click());
    await act(async () => button(host, "Cancel").click());
    const panel = host.querySelector("[role='dialog']")!;
    await act(async () => panel.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true })));
    expect(answers.map((a) => (a.result as { action: string }).action)).toEqual(["decline", "cancel", "cancel"]);
  });

  it("refuses to open a link the core will not open, and cannot accept one it could not read", () => {
    const script: UrlElicitation = {
      ...SPOOF,
      url: "javascript:alert(1)",
      link: {
        before: "javascript:alert(1)",
        host: "",
        after: "",
        opens: null,
        warnings: [
          "Sonde opens only http and https links; this one is javascript:, which could start another program, so it is not opened.",
        ],
      },
    };
    const { host } = show(question(script, { mode: "url", message: "m", url: script.url }));
    expect(button(host, "Open in browser").disabled).toBe(true);
    expect(host.textContent).toContain("Sonde opens only http and https links");
    act(() => root!.unmount());
    const broken = show({
      ...question(null, { mode: "url", message: "m" }),
      problems: ["a URL-mode elicitation without a `url` string"],
    } as ServerQuestion);
    expect(broken.host.textContent).toContain("a URL-mode elicitation without a `url` string");
    expect(button(broken.host, "Accept").disabled).toBe(true);
  });
});

describe("a link whose completion is awaited", () => {
  it("says the server has not reported it done, then that it has", () => {
    const host = document.createElement("div");
    document.body.append(host);
    root = createRoot(host);
    act(() => root!.render(<LinkView conn={3} elicitation={SPOOF} awaitDone />));
    expect(host.textContent).toContain("Not reported done by the server yet.");
    act(() => markLinkCompleted(4, "e-1"));
    expect(host.textContent).toContain("Not reported done by the server yet.");
    act(() => markLinkCompleted(3, "e-1"));
    expect(host.querySelector("[role='status']")!.textContent).toBe("The server says this is done");
  });
});

describe("folding the question panel", () => {
  it("folds to its header with the question's first line, and unfolds with what was typed kept", async () => {
    const folds: boolean[] = [];
    const host = document.createElement("div");
    document.body.append(host);
    root = createRoot(host);
    const q = question(null, {
      message: "Your name?\nWe use it to greet you.",
      requestedSchema: { type: "object", properties: { name: { type: "string" } } },
    });
    const render = (folded: boolean) =>
      act(() =>
        root!.render(
          <QuestionDialog
            question={q}
            serverName="Everything"
            waiting={1}
            others={0}
            folded={folded}
            onFold={(f) => folds.push(f)}
            onAnswer={async () => {}}
            onDeclineAll={async () => {}}
          />,
        ),
      );
    render(false);
    const input = host.querySelector<HTMLInputElement>("form input")!;
    act(() => {
      Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")!.set!.call(input, "Ann");
      input.dispatchEvent(new Event("input", { bubbles: true }));
    });
    const fold = host.querySelector<HTMLButtonElement>("button.fold")!;
    expect(fold.getAttribute("aria-expanded")).toBe("true");
    await act(async () => fold.click());
    expect(folds).toEqual([true]);

    render(true);
    expect(host.querySelector<HTMLElement>(".question-body")!.hidden).toBe(true);
    expect(host.querySelector(".gist")!.textContent).toBe("Your name?");
    expect(host.querySelector("button.fold")!.getAttribute("aria-expanded")).toBe("false");
    // Still there, as typed, for when it unfolds.
    render(false);
    expect(host.querySelector<HTMLElement>(".question-body")!.hidden).toBe(false);
    expect(host.querySelector<HTMLInputElement>("form input")!.value).toBe("Ann");
  });
});
