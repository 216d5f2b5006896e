// The in-memory demo server's tools as data: what each call does (canned.json's calls, the
// double's own: a fixed result, a question and the answer's words, a link), filled in by `fill`,
// and what the core makes of them (recorded.json, by src-tauri/tests/recorded.rs): each tool's
// view with its hints and problems; and `served`, which answers with the core's recorded answer
// to an input.
import type { BackendError, JsonValue, ToolView, UrlElicitation } from "./backend";
import { backendError } from "./backend";
import canned from "./canned.json";
import recorded from "./recorded.json";

/** The demo's tools as the core reads them: the real demo's echo, add and greet, then the double's. */
export const TOOLS = recorded.tools as unknown as ToolView[];
/** What a demo tool's call does, as data: its fixed result, or the question it asks first (an
 * elicitation whose params are given or are a link's), the link it requires opened first, and
 * its answer's text by the person's action (or `refused`, an error), `{…}` filled from the
 * arguments and the answer. */
export interface Script {
  result?: JsonValue;
  embedded?: never[];
  asks?: string;
  params?: JsonValue;
  link?: keyof typeof canned.links;
  says?: Record<string, string>;
}
export const SCRIPTS = canned.calls as unknown as Record<string, Script>;
export const LINKS = canned.links as Record<string, UrlElicitation>;

/** `text` with each `{path}` filled from `values`: a string as it is, anything else as JSON. */
export const fill = (text: string, values: Record<string, unknown>) =>
  text.replace(/\{([\w.]+)\}/g, (_, path: string) => {
    const v = path.split(".").reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], values);
    return typeof v === "string" ? v : JSON.stringify(v);
  });

/** `value` with every string in it filled as `fill` does. */
export const fillAll = (value: unknown, values: Record<string, unknown>): unknown =>
  typeof value === "string"
    ? fill(value, values)
    : Array.isArray(value)
      ? value.map((v) => fillAll(v, values))
      : value && typeof value === "object"
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillAll(v, values)]))
        : value;

/** A command's answer as the core gave it (recorded.json, keyed by what it was given): its
 * value, or its error thrown; an input the core was not asked about is refused, saying so. */
export function served<T>(answers: Record<string, unknown>, given: string): T {
  const answer = answers[given] as { ok?: T; error?: BackendError } | undefined;
  if (answer === undefined)
    throw backendError({
      code: "bad_input",
      message: `the browser preview knows the core's answers to its tests' inputs only; the Sonde app reads ${given}`,
    });
  if (answer.error) throw backendError(answer.error);
  return answer.ok as T;
}
