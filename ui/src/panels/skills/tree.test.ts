import { describe, expect, it } from "vitest";
import type { SkillEntry } from "../../ipc";
import { linkedUri, listedChildren, readChildren } from "./tree";

const file = (uri: string, size = 1) => ({ uri, digest: "sha256:x", size });
const skill = (files: SkillEntry["files"]): SkillEntry =>
  ({
    uri: "skill://acme/refunds/SKILL.md",
    name: "refunds",
    description: "d",
    frontmatter: {},
    files,
    invalid: null,
    problems: [],
  }) as SkillEntry;

describe("a skill's tree", () => {
  const refunds = skill([
    file("skill://acme/refunds/scripts/b.sh", 3),
    file("skill://acme/refunds/notes.md", 2),
    file("skill://acme/refunds/SKILL.md", 9),
    file("skill://acme/refunds/scripts/a.sh", 4),
    file("skill://acme/refunds/scripts/deep/c.txt", 5),
  ]);

  it("lists a directory's direct children: SKILL.md, then directories, then files, a deeper path once as its directory", () => {
    expect(listedChildren(refunds, "skill://acme/refunds")).toEqual([
      { name: "SKILL.md", uri: "skill://acme/refunds/SKILL.md", dir: false, size: 9 },
      { name: "scripts", uri: "skill://acme/refunds/scripts", dir: true, size: null },
      { name: "notes.md", uri: "skill://acme/refunds/notes.md", dir: false, size: 2 },
    ]);
    expect(listedChildren(refunds, "skill://acme/refunds/scripts").map((n) => [n.name, n.dir])).toEqual([
      ["deep", true],
      ["a.sh", false],
      ["b.sh", false],
    ]);
  });

  it("shows a dynamic skill's SKILL.md alone, its size unknown", () => {
    expect(listedChildren(skill(null), "skill://acme/refunds")).toEqual([
      { name: "SKILL.md", uri: "skill://acme/refunds/SKILL.md", dir: false, size: null },
    ]);
  });

  it("reads a directory read's children, a directory by its MIME type, and leaves out what has no URI", () => {
    const nodes = readChildren(
      [
        { uri: "skill://acme/refunds/scripts", name: "scripts", mimeType: "inode/directory" },
        { uri: "skill://acme/refunds/SKILL.md", name: "SKILL.md", size: 9 },
        { name: "nameless" },
      ],
      "skill://acme/refunds/SKILL.md",
    );
    expect(nodes.map((n) => [n.name, n.dir, n.size])).toEqual([
      ["SKILL.md", false, 9],
      ["scripts", true, null],
    ]);
  });
});

describe("a link in a skill file", () => {
  const refunds = skill([]);
  const md = "skill://acme/refunds/SKILL.md";
  it("names a file of the skill relative to the file it is in", () => {
    expect(linkedUri(refunds, md, "scripts/a.sh")).toBe("skill://acme/refunds/scripts/a.sh");
    expect(linkedUri(refunds, md, "./notes.md#part")).toBe("skill://acme/refunds/notes.md");
    expect(linkedUri(refunds, "skill://acme/refunds/scripts/a.sh", "../notes.md")).toBe(
      "skill://acme/refunds/notes.md",
    );
    expect(linkedUri(refunds, md, "my%20file.md")).toBe("skill://acme/refunds/my file.md");
  });

  it("names nothing when it leaves the skill, has a scheme or is a fragment", () => {
    expect(linkedUri(refunds, md, "../other/SKILL.md")).toBeNull();
    expect(linkedUri(refunds, md, "https://example.com/x.md")).toBeNull();
    expect(linkedUri(refunds, md, "javascript:alert(1)")).toBeNull();
    expect(linkedUri(refunds, md, "#usage")).toBeNull();
    expect(linkedUri(refunds, md, "/etc/passwd")).toBeNull();
  });
});
