// A skill's files as a tree, from its entry's list (the server's directory reads, where it
// declares them, give the same nodes one directory at a time), and a Markdown link in SKILL.md
// resolved to the file of the skill it names. Pure: no requests.
import type { JsonValue, SkillEntry } from "../../ipc";

/** One node of a skill's tree: a file (its URI reads it) or a directory (its URI lists it). */
export interface Node {
  name: string;
  uri: string;
  dir: boolean;
  /** A file's size as listed (the entry's, or the directory read's), if given. */
  size: number | null;
}

/** The skill's root: its SKILL.md's URI without `/SKILL.md`. */
export const rootOf = (skill: SkillEntry): string => skill.uri.replace(/\/SKILL\.md$/, "");

/** The direct children of directory `dir` (a URI) among the files the entry lists: files first
 * as listed, a deeper path as the directory that holds it, once; SKILL.md first of all. A
 * `"dynamic"` skill's list is its SKILL.md alone. */
export function listedChildren(skill: SkillEntry, dir: string): Node[] {
  const files = skill.files ?? [{ uri: skill.uri, digest: "", size: 0 }];
  const nodes: Node[] = [];
  for (const file of files) {
    if (!file.uri.startsWith(`${dir}/`)) continue;
    const [name, ...deeper] = file.uri.slice(dir.length + 1).split("/");
    if (!name) continue;
    const uri = `${dir}/${name}`;
    if (nodes.some((n) => n.uri === uri)) continue;
    nodes.push({ name, uri, dir: deeper.length > 0, size: deeper.length > 0 || !skill.files ? null : file.size });
  }
  return order(nodes, skill.uri);
}

/** The children a `resources/directory/read` gave, as nodes: a directory is `inode/directory`. */
export function readChildren(children: JsonValue[], skillMd: string): Node[] {
  const nodes = children.flatMap((c) => {
    if (typeof c !== "object" || c === null || Array.isArray(c) || typeof c.uri !== "string") return [];
    const name = typeof c.name === "string" ? c.name : c.uri.slice(c.uri.lastIndexOf("/") + 1);
    const size = typeof c.size === "number" ? c.size : null;
    return [{ name, uri: c.uri, dir: c.mimeType === "inode/directory", size }];
  });
  return order(nodes, skillMd);
}

/** SKILL.md first, then directories, then files, each by name. */
function order(nodes: Node[], skillMd: string): Node[] {
  const rank = (n: Node) => (n.uri === skillMd ? 0 : n.dir ? 1 : 2);
  return nodes.sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
}

/** The URI a relative link in a skill file at `from` names, or `null` for a link that leaves
 * the skill, has a scheme, or is only a fragment. */
export function linkedUri(skill: SkillEntry, from: string, href: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith("#") || href.startsWith("/")) return null;
  const root = rootOf(skill);
  const parts = from.slice(0, from.lastIndexOf("/")).slice(root.length).split("/").filter(Boolean);
  for (const part of href.split(/[?#]/)[0].split("/")) {
    if (part === "..") {
      if (!parts.length) return null;
      parts.pop();
    } else if (part && part !== ".") parts.push(decodeURIComponent(part));
  }
  return parts.length ? `${root}/${parts.join("/")}` : null;
}
