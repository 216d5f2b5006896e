// What a saved server's dialog cannot save without: a name, and the command line (stdio) or the
// URL (HTTP) of the kind chosen. The core decides what it saves and says why it refuses; this
// only finds the empty fields before asking, so that the dialog can point at each of them.
import type { SavedServer } from "../ipc";

export interface ServerProblems {
  name?: string;
  command?: string;
  url?: string;
}

const blank = (text: string | null | undefined) => !text?.trim();

export function serverProblems(server: SavedServer, overHttp: boolean): ServerProblems {
  const found: ServerProblems = {};
  if (blank(server.name)) found.name = "Give the server a name: the sidebar and the log show it by this name.";
  if (overHttp && blank(server.url)) found.url = "Type the server's URL, like http://127.0.0.1:3001/mcp.";
  if (!overHttp && blank(server.command))
    found.command =
      "Type the command line that starts the server, like npx -y @modelcontextprotocol/server-everything stdio.";
  return found;
}

/** The empty fields in a sentence: "Not saved: the name and the command line are empty." */
export function notSaved(found: ServerProblems): string | null {
  const names = [found.name && "the name", found.command && "the command line", found.url && "the URL"].filter(
    (n): n is string => Boolean(n),
  );
  if (!names.length) return null;
  const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
  return `Not saved: ${list} ${names.length === 1 ? "is" : "are"} empty.`;
}
