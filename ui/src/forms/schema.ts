// A form generated from a tool's inputSchema, kept in step with a raw JSON editor. The form
// edits a plain object of field texts; `toArguments` turns them into the call's arguments and
// `fromArguments` goes back, so switching views never loses what was typed.

export interface Field {
  name: string;
  kind: "string" | "number" | "integer" | "boolean" | "enum" | "json";
  required: boolean;
  description?: string;
  options?: string[];
}

type Schema = { type?: unknown; properties?: Record<string, Schema>; required?: string[]; enum?: unknown[]; description?: string };

export function fieldsOf(inputSchema: unknown): Field[] {
  const schema = (inputSchema ?? {}) as Schema;
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, prop]) => {
    const base = { name, required: required.has(name), description: prop.description };
    if (Array.isArray(prop.enum) && prop.enum.every((v) => typeof v === "string")) {
      return { ...base, kind: "enum", options: prop.enum as string[] };
    }
    const t = prop.type;
    if (t === "string" || t === "number" || t === "integer" || t === "boolean") return { ...base, kind: t };
    return { ...base, kind: "json" };
  });
}

/** Field texts → arguments, or the first field that does not parse. */
export function toArguments(fields: Field[], values: Record<string, string>): { args: Record<string, unknown> } | { error: string } {
  const args: Record<string, unknown> = {};
  for (const f of fields) {
    const raw = values[f.name] ?? "";
    if (raw === "" && f.kind !== "boolean") {
      if (f.required) return { error: `${f.name} is required` };
      continue;
    }
    switch (f.kind) {
      case "string":
      case "enum":
        args[f.name] = raw;
        break;
      case "number":
      case "integer": {
        const n = Number(raw);
        if (!Number.isFinite(n) || (f.kind === "integer" && !Number.isInteger(n))) return { error: `${f.name} must be ${f.kind === "integer" ? "an integer" : "a number"}` };
        args[f.name] = n;
        break;
      }
      case "boolean":
        if (raw === "") continue;
        args[f.name] = raw === "true";
        break;
      case "json":
        try {
          args[f.name] = JSON.parse(raw);
        } catch {
          return { error: `${f.name} is not valid JSON` };
        }
    }
  }
  return { args };
}

/** Arguments → field texts (for switching from the JSON editor back to the form). */
export function fromArguments(fields: Field[], args: Record<string, unknown>): Record<string, string> {
  const values: Record<string, string> = {};
  for (const f of fields) {
    const v = args[f.name];
    if (v === undefined) continue;
    values[f.name] = f.kind === "json" ? JSON.stringify(v) : String(v);
  }
  return values;
}
