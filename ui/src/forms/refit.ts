// A form's values carried to a new schema (the tool's server restarted with a new build): the
// arguments the new schema still takes stay in the form; the others are set aside, to be said
// and put back on request, never sent unseen.
import { isObject, type Draft } from "./draft";
import type { Kept } from "./kept";
import { problemsOf, resolve } from "./schema";

/** `v` split for `schema`: what stays in the form, and the top-level arguments set aside (a
 * name the schema no longer has, or a value it no longer accepts). */
export function refit(schema: unknown, v: Draft): { kept: Draft; aside: Kept[] } {
  if (!isObject(v)) return { kept: v, aside: [] };
  const named = resolve(schema, schema).properties ?? {};
  const kept: Record<string, unknown> = {};
  const aside: Kept[] = [];
  for (const [name, item] of Object.entries(v)) {
    if (item === undefined) continue;
    const fits = Object.hasOwn(named, name) && problemsOf(named[name], item, schema, name, false, 1).length === 0;
    if (fits) kept[name] = item;
    else aside.push({ path: name, value: item });
  }
  return { kept, aside };
}
