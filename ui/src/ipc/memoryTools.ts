// The in-memory demo server's tools as the core reads them (views with their hints and
// problems), the hostile fixture's tools as the core words them, and the links its link tools
// ask for: the static data memory.ts serves.
import { DEMO_TOOLS, type ToolView, type UrlElicitation } from "./backend";
import { RESULT_TOOLS } from "./memoryResults";

/** The demo server's tools, as its Rust lists them (generated with the bindings). */
const demo = (name: string) => DEMO_TOOLS.find((t) => t.name === name)!;

export const TOOLS = [
  demo("echo"),
  demo("add"),
  demo("greet"),
  {
    name: "summarize",
    title: "Summarize",
    description: "Asks the client's model for a summary (sampling).",
    inputSchema: { type: "object", properties: {} },
  },
  // A form with every shape the schema form handles: nested object, array, enum, oneOf.
  {
    name: "ship",
    title: "Ship a parcel",
    description: "Returns the arguments it is given.",
    inputSchema: {
      type: "object",
      properties: {
        to: { type: "object", properties: { city: { type: "string" }, zip: { type: "string" } }, required: ["city"] },
        items: { type: "array", items: { type: "string" } },
        speed: { type: "string", enum: ["standard", "express"] },
        payment: {
          oneOf: [
            { title: "Card", type: "object", properties: { card: { type: "string" } }, required: ["card"] },
            { title: "Invoice", type: "object", properties: { invoice: { type: "integer" } }, required: ["invoice"] },
          ],
        },
      },
      required: ["to", "speed"],
    },
  },
  // Defaults, formats, titled and multi-select choices and an array of objects, as server-everything's
  // elicitation form has them (issue 21).
  {
    name: "book",
    title: "Book a table",
    description: "Returns the arguments it is given.",
    inputSchema: {
      type: "object",
      properties: {
        guests: { type: "integer", title: "Guests", default: 2 },
        email: { type: "string", format: "email", title: "Email" },
        at: { type: "string", format: "date-time", title: "When" },
        seating: {
          type: "string",
          title: "Seating",
          oneOf: [
            { const: "in", title: "Indoors" },
            { const: "out", title: "On the terrace" },
          ],
          default: "in",
        },
        diet: {
          type: "array",
          title: "Diet",
          items: {
            anyOf: [
              { const: "veg", title: "Vegetarian" },
              { const: "gf", title: "Gluten-free" },
              { const: "nuts", title: "No nuts" },
            ],
          },
        },
        menu: { type: "string", title: "Menu", enum: ["m1", "m2"], enumNames: ["Tasting", "À la carte"] },
        dishes: {
          type: "array",
          title: "Dishes",
          items: {
            type: "object",
            properties: { name: { type: "string" }, count: { type: "integer" } },
            required: ["name"],
          },
        },
      },
      required: ["guests", "email", "at"],
    },
  },
  {
    name: "sign_in",
    title: "Sign in",
    description: "Asks you to open a sign-in link (URL-mode elicitation).",
    inputSchema: { type: "object", properties: {} },
  },
  {
    name: "authorize",
    title: "Authorize",
    description: "Refuses until you open its link (-32042 URLElicitationRequired), then answers.",
    inputSchema: { type: "object", properties: {} },
  },
  {
    name: "crash",
    title: "Crash",
    description: "Kills its server in the middle of the call, as a crash would.",
    inputSchema: { type: "object", properties: {} },
  },
  {
    name: "research",
    title: "Research",
    description: "Runs as a task: three stages, and a question first when the topic is ambiguous.",
    inputSchema: {
      type: "object",
      properties: { topic: { type: "string" }, ambiguous: { type: "boolean" } },
      required: ["topic"],
    },
  },
  {
    name: "slow",
    title: "Slow task",
    description: "Works for a while, reporting progress.",
    inputSchema: { type: "object", properties: { seconds: { type: "number" }, steps: { type: "integer" } } },
  },
  ...RESULT_TOOLS,
];

/** A well-formed tool as the core reads it. */
export const view = (raw: (typeof TOOLS)[number]): ToolView =>
  ({
    name: raw.name,
    title: raw.title,
    description: raw.description,
    inputSchema: raw.inputSchema,
    icons: [],
    hints: Object.entries(("annotations" in raw && raw.annotations) || {})
      .filter(([k, v]) => k.endsWith("Hint") && v === true)
      .map(([k]) => k.replace(/Hint$/, "")),
    problems: [],
    raw,
  }) as unknown as ToolView;

/** What the core says of sonde-fixture's `--malformed-tools` and `--ask-many`, for a saved server
 * whose command runs the fixture: its views are the core's words, copied (src/shape). */
export const HOSTILE_TOOLS = [
  { name: "echo", description: "Echoes its text back.", problems: [] },
  {
    name: "bad_icons",
    description: "Its icons are an object, not an array.",
    problems: ["icons is an object, not an array"],
  },
  {
    name: "object_title",
    description: "Its title is an object, not a string.",
    problems: ["title is an object, not a string"],
  },
  {
    name: "numeric_required",
    description: "Its inputSchema says required: 5.",
    problems: ["inputSchema.required is a number, not a list of property names"],
    required: 5,
  },
  { name: "content_not_array", description: "Its result's content is an object, not an array.", problems: [] },
  { name: "ask_many", description: "Asks 100 questions at once (elicitation/create).", problems: [] },
].map(
  ({ required, ...t }) =>
    ({
      ...t,
      title: null,
      inputSchema: { type: "object", properties: { text: { type: "string" } }, ...(required ? { required } : {}) },
      icons: [],
      hints: [],
      raw: { name: t.name },
    }) as unknown as ToolView,
);

/** A link as the core reads it (src/url_elicitation.rs): the words are the core's, copied. */
const linkOf = (message: string, host: string, after: string, elicitationId: string): UrlElicitation => ({
  message,
  url: `https://${host}${after}`,
  elicitationId,
  link: { before: "https://", host, after, opens: `https://${host}${after}`, warnings: [] },
});
export const SIGN_IN = linkOf("Sign in to continue.", "auth.example.com", "/sign-in?session=42", "mem-sign-in-1");
export const AUTHORIZE = linkOf(
  "Authorize access to your files.",
  "auth.example.com",
  "/connect?elicitationId=mem-auth-1",
  "mem-auth-1",
);
