// The in-memory demo server's tools and what its calls send (canned.json, the double's own), and
// what the core makes of them (recorded.json, by src-tauri/tests/recorded.rs): each tool's view
// with its hints and problems, the hostile fixture's listing and its malformed result's
// problems, whether a call may be sent again, and the links its link tools ask for.
import type { BackendError, JsonValue, ToolView, UrlElicitation } from "./backend";
import { backendError } from "./backend";
import canned from "./canned.json";
import recorded from "./recorded.json";

/** The demo's tools as the core reads them: the real demo's echo, add and greet, then the double's. */
export const TOOLS = recorded.tools as unknown as ToolView[];
/** What the core says of sonde-fixture's `--malformed-tools --ask-many 100` tools. */
export const HOSTILE_TOOLS = recorded.hostile.tools as unknown as ToolView[];
/** The problems the core finds in the fixture's `content_not_array` result. */
export const NOT_AN_ARRAY = recorded.hostile.contentNotArray.problems;
/** The core's answer to whether each tool may be sent again after its server died. */
export const RESEND_RISKS = recorded.resendRisks as Record<string, string | null>;
export const SIGN_IN = canned.links.signIn as UrlElicitation;
export const AUTHORIZE = canned.links.authorize as UrlElicitation;
/** Bundle's result (a resource link, embedded resources, annotated blocks) and its embedded
 * resources as the core reads them. */
export const BUNDLE = canned.bundle as unknown as { result: JsonValue; embedded: never[] };
/** What greet and profile ask (profile's fourteen fields are as long as server-everything's
 * elicitation form), and summarize's request of the client's model. */
export const QUESTIONS = canned.questions as Record<"greet" | "profile" | "summarize", JsonValue>;

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
