// The in-memory demo server's tools for what a result and a question can carry: a result with a
// resource link, embedded resources (text bytes, an image, other bytes) and annotations on its
// blocks; and a question whose form is taller than the window, as server-everything's
// trigger-elicitation-request is.
import { DEMO_PNG } from "./memorySurface";

export const RESULT_TOOLS = [
  {
    name: "bundle",
    title: "Bundle",
    description: "Returns a resource link, embedded resources and annotated blocks.",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true },
  },
  {
    name: "profile",
    title: "Profile",
    description: "Asks who you are in fourteen fields (an elicitation taller than the window), then thanks you.",
    inputSchema: { type: "object", properties: {} },
  },
];

const base64 = (text: string) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));

/** Bundle's result: every block of it annotated or embedded. */
export const BUNDLE_RESULT = {
  content: [
    {
      type: "text",
      text: "Here is the README, and three resources embedded.",
      annotations: { audience: ["user"], priority: 0.9 },
    },
    {
      type: "resource_link",
      uri: "demo://readme",
      name: "readme",
      title: "README",
      description: "The demo server's README",
      mimeType: "text/markdown",
      annotations: { audience: ["assistant"], lastModified: "2025-06-18T12:00:00Z" },
    },
    {
      type: "resource",
      resource: { uri: "demo://notes.txt", mimeType: "text/plain", blob: base64("Notes kept as bytes: café.\n") },
      annotations: { priority: 0.2 },
    },
    { type: "resource", resource: { uri: "demo://logo.png", mimeType: "image/png", blob: DEMO_PNG } },
    {
      type: "resource",
      resource: {
        uri: "demo://archive.bin",
        mimeType: "application/octet-stream",
        blob: btoa("\u0000\u0001\u0002\u00ff"),
      },
    },
  ],
};

/** Bundle's embedded resources as the core reads them (shape/content.rs): the text bytes
 * decoded, the image inline, the other bytes by their size. */
export const BUNDLE_EMBEDDED = [
  {
    index: 2,
    view: {
      uri: "demo://notes.txt",
      mimeType: "text/plain",
      kind: "text",
      text: "Notes kept as bytes: café.\n",
      blob: base64("Notes kept as bytes: café.\n"),
      size: 28,
    },
    problem: null,
  },
  {
    index: 3,
    view: {
      uri: "demo://logo.png",
      mimeType: "image/png",
      kind: "image",
      text: null,
      blob: DEMO_PNG,
      size: Math.floor((DEMO_PNG.length * 3) / 4),
    },
    problem: null,
  },
  {
    index: 4,
    view: {
      uri: "demo://archive.bin",
      mimeType: "application/octet-stream",
      kind: "binary",
      text: null,
      blob: btoa("\u0000\u0001\u0002\u00ff"),
      size: 4,
    },
    problem: null,
  },
];

/** Profile's question: fourteen fields, as long as server-everything's elicitation form. */
export const PROFILE_QUESTION = {
  message: "Tell us about yourself:",
  requestedSchema: {
    type: "object",
    properties: {
      name: { type: "string", title: "Name", default: "Ada" },
      email: { type: "string", title: "Email" },
      homepage: { type: "string", title: "Homepage" },
      city: { type: "string", title: "City" },
      country: { type: "string", title: "Country" },
      language: { type: "string", title: "Language", enum: ["English", "French", "Norwegian"] },
      age: { type: "integer", title: "Age" },
      height: { type: "number", title: "Height (m)" },
      pet: { type: "string", title: "Pet", enum: ["cat", "dog", "fish"] },
      colour: { type: "string", title: "Favourite colour" },
      book: { type: "string", title: "Favourite book" },
      motto: { type: "string", title: "Motto" },
      newsletter: { type: "boolean", title: "Send me the newsletter" },
      terms: { type: "boolean", title: "I agree to the terms" },
    },
    required: ["name"],
  },
};
