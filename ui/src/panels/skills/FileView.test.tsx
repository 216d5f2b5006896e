// @vitest-environment happy-dom
import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { SkillEntry, SkillFileRead } from "../../ipc";
import { FileView } from "./FileView";
import { markOf, type Read } from "./SkillView";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const skill = {
  uri: "skill://pdf/SKILL.md",
  name: "pdf",
  description: "Fill PDF forms.",
  frontmatter: { name: "pdf", description: "Fill PDF forms.", metadata: { owner: "docs" } },
  files: [],
  invalid: null,
  problems: [],
} as SkillEntry;

const read = (fields: Partial<SkillFileRead>): Read => ({
  read: {
    uri: "skill://pdf/reference.md",
    mimeType: "text/markdown",
    text: "Use pdftk to FILL forms.\n",
    base64: null,
    size: 25,
    check: { verdict: "verified" },
    verified: true,
    frontmatter: [],
    body: null,
    ...fields,
  },
});

let root: Root | null = null;
afterEach(() => {
  act(() => root?.unmount());
  root = null;
  document.body.innerHTML = "";
  vi.restoreAllMocks();
});

function shown(uri: string, r: Read, onOpen = vi.fn()): HTMLElement {
  const host = document.createElement("div");
  document.body.append(host);
  root = createRoot(host);
  act(() => root!.render(<FileView skill={skill} uri={uri} read={r} onOpen={onOpen} onRead={() => {}} />));
  return host;
}

const button = (host: HTMLElement, text: string) =>
  [...host.querySelectorAll("button")].find((b) => b.textContent === text) as HTMLButtonElement;

describe("a skill file's view", () => {
  it("holds a tampered file's content back under a ✗ with both digests, and shows it marked once asked", () => {
    const tampered = read({
      check: { verdict: "digest_mismatch", listed: "sha256:aaa", read: "sha256:bbb" },
      verified: false,
    });
    const host = shown("skill://pdf/reference.md", tampered);
    const verdict = host.querySelector("[aria-label='Verification']")!;
    expect(verdict.className).toContain("bad");
    expect(verdict.textContent).toBe("✗ Digest mismatch: the entry lists sha256:aaa, the file's is sha256:bbb.");
    expect(host.textContent).not.toContain("FILL");
    act(() => button(host, "Show the unverified content").click());
    expect(host.querySelector(".banner.unverified")?.textContent).toContain("Unverified content");
    expect(host.querySelector("pre")?.textContent).toBe("Use pdftk to FILL forms.\n");
  });

  it("says a size mismatch and each frontmatter difference, and a verified file's content at once", () => {
    const grown = shown(
      "skill://pdf/data.txt",
      read({ check: { verdict: "size_mismatch", listed: 6, read: 8 }, verified: false }),
    );
    expect(grown.textContent).toContain("✗ Size mismatch: the entry lists 6 bytes, the file has 8.");
    act(() => root?.unmount());
    const md = shown(
      "skill://pdf/SKILL.md",
      read({ uri: "skill://pdf/SKILL.md", verified: false, frontmatter: ["description: differs"], body: "# PDF\n" }),
    );
    expect(md.querySelector("[aria-label='Verification']")?.textContent).toBe(
      "✓ Verified: its size and sha256 digest are the entry's.✗ Frontmatter: description: differs",
    );
    act(() => root?.unmount());
    const fine = shown("skill://pdf/reference.md", read({}));
    expect(fine.querySelector("pre")?.textContent).toBe("Use pdftk to FILL forms.\n");
  });

  it("renders SKILL.md's instructions as Markdown beside the entry's frontmatter; a link to a file of the skill opens it, another is not followed", async () => {
    const onOpen = vi.fn();
    const host = shown(
      "skill://pdf/SKILL.md",
      read({
        uri: "skill://pdf/SKILL.md",
        text: "---\nname: pdf\n---\n# PDF\n",
        body: "# PDF\n\nSee [the reference](reference.md) or [the site](https://example.com).\n\n<script>alert(1)</script>\n",
      }),
      onOpen,
    );
    const article = host.querySelector("[aria-label='SKILL.md rendered']")!;
    // The renderer loads on first use: wait for it (a deadline, not a sleep).
    await vi.waitFor(() => expect(article.querySelector("h1")?.textContent).toBe("PDF"), { timeout: 5000 });
    expect(article.querySelector("script")).toBeNull();
    expect(article.querySelector("a")).toBeNull();
    act(() => button(host, "the reference").click());
    expect(onOpen).toHaveBeenCalledWith("skill://pdf/reference.md");
    expect(article.textContent).toContain("the site (https://example.com)");
    const frontmatter = host.querySelector("[aria-label='Frontmatter']")!.textContent;
    expect(frontmatter).toContain("metadata");
    expect(frontmatter).toContain('{"owner":"docs"}');
  });
});

describe("a file's mark in the tree", () => {
  it("is ✓ verified, ✗ on any mismatch, ? when the entry does not list it, ! when it could not be read, none unread", () => {
    expect(markOf(undefined)).toBeNull();
    expect(markOf(read({}))?.mark).toBe("✓");
    expect(markOf(read({ check: { verdict: "size_mismatch", listed: 1, read: 2 }, verified: false }))?.mark).toBe("✗");
    expect(markOf(read({ verified: false, frontmatter: ["x"] }))?.mark).toBe("✗");
    expect(markOf(read({ check: { verdict: "unlisted" }, verified: false }))?.mark).toBe("?");
    expect(markOf({ error: "gone" })).toEqual({ mark: "!", words: "not read: gone" });
  });
});
