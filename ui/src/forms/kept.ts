// What a draft holds that the form has no field for: properties the schema does not name (typed
// in the raw JSON editor, or given by a server's default), at any depth. They stay in the draft
// and are sent; the form lists them so that nothing it holds is out of sight. It walks the draft
// as `SchemaForm` renders it: a value a field cannot edit in its own way is shown as JSON there,
// so only unnamed properties of the objects the form lays out as fields are listed here.
import { isObject, type Draft } from "./draft";
import { branchesOf, fitsKind, itemSchemaOf, kindOf, pickBranch, resolve } from "./schema";

export interface Kept {
  /** Where, as `to.floor` or `items[2].note`. */
  path: string;
  value: unknown;
}

const join = (path: string, name: string) => (path ? `${path}.${name}` : name);

export function keptOf(schema: unknown, v: Draft, root: unknown = schema, path = "", depth = 0): Kept[] {
  const s = resolve(schema, root);
  const kind = kindOf(s, depth, root);
  // A root object with no properties (a tool without arguments) still lays out its value as an
  // object, as SchemaForm does.
  const object = kind === "object" || (depth === 0 && kind === "json" && s.type === "object");
  if (v === undefined || !fitsKind(object ? "object" : kind, v)) return [];
  if (object && isObject(v)) {
    const named = s.properties ?? {};
    return Object.entries(v).flatMap(([name, item]) => {
      if (item === undefined) return [];
      if (!Object.hasOwn(named, name)) return [{ path: join(path, name), value: item }];
      return keptOf(named[name], item, root, join(path, name), depth + 1);
    });
  }
  if (kind === "array" && Array.isArray(v))
    return v.flatMap((item, i) => keptOf(itemSchemaOf(s, root, i), item, root, `${path}[${i}]`, depth + 1));
  if (kind === "choice") {
    const branches = branchesOf(s, root);
    const branch = branches[pickBranch(branches, v, root)];
    return branch ? keptOf(branch.schema, v, root, path, depth + 1) : [];
  }
  return [];
}
