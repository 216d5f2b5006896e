// What the tool filter box matches: a tool whose name, title or description holds every word
// typed, in any case. A server can list up to 10,000 tools, so each tool's text is lowered once,
// when the list arrives, not on every key.

/** What a tool is found by: its name, title and description, lowered. */
export const searchText = (tool: { name: string | null; title: string | null; description: string | null }) =>
  [tool.name, tool.title, tool.description]
    .filter((s) => s)
    .join("\n")
    .toLowerCase();

/** The words of a filter, lowered; none when it is blank (everything matches). */
export const filterWords = (filter: string) => filter.toLowerCase().split(/\s+/).filter(Boolean);

/** Whether a tool's search text holds every word. */
export const matches = (text: string, words: string[]) => words.every((w) => text.includes(w));
