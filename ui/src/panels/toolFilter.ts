// What the tool filter box matches: a tool whose name, title or description holds every word
// typed, in any case. A server can list up to 10,000 tools, so each tool's text is lowered once,
// when the list arrives, not on every key, and a key filters them in one plain loop: in the
// window's script engine a call per tool (a callback, a lookup, a second callback per word) made
// the filter at 10,000 tools take 2–8 ms of a 17 ms frame.

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

/** The items whose text (`texts[i]` is `items[i]`'s) holds every word, in order; all of them, the
 * same array, when there are no words. */
export function filterByText<T>(items: T[], texts: string[], words: string[]): T[] {
  if (!words.length) return items;
  const found: T[] = [];
  for (let i = 0; i < items.length; i++) {
    const text = texts[i];
    let all = true;
    for (let w = 0; all && w < words.length; w++) all = text.includes(words[w]);
    if (all) found.push(items[i]);
  }
  return found;
}
