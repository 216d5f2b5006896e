import { describe, expect, it } from "vitest";
import { embeddedView } from "./embedded";

const b64 = (text: string) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));

describe("an embedded resource read by MIME type", () => {
  it("decodes a blob of text (text/*, with a charset) to be read, and keeps the blob to save", () => {
    const view = embeddedView({ uri: "a://n", mimeType: "text/plain; charset=utf-8", blob: b64("café\n") });
    expect(view).toMatchObject({ kind: "text", text: "café\n", blob: b64("café\n"), size: 6 });
  });

  it("pretty-prints a JSON blob, and JSON text, as a read's JSON is", () => {
    expect(embeddedView({ uri: "a://j", mimeType: "application/json", blob: b64('{"a":1}') })).toMatchObject({
      kind: "json",
      text: '{\n  "a": 1\n}',
      size: 7,
    });
    expect(embeddedView({ uri: "a://j", mimeType: "application/ld+json", text: "[1]" })).toMatchObject({
      kind: "json",
      text: "[\n  1\n]",
      blob: null,
    });
    // JSON that does not parse is shown as the text it is.
    expect(embeddedView({ uri: "a://j", mimeType: "application/json", text: "{no" })).toMatchObject({
      kind: "text",
      text: "{no",
    });
  });

  it("shows images and audio, and other bytes (or text that is not UTF-8) as their size", () => {
    expect(embeddedView({ uri: "a://i", mimeType: "image/png", blob: "iVBORw0KGgo=" })).toMatchObject({
      kind: "image",
      size: 8,
    });
    expect(embeddedView({ uri: "a://s", mimeType: "audio/wav", blob: "UklGRg==" })).toMatchObject({ kind: "audio" });
    expect(embeddedView({ uri: "a://b", mimeType: "application/octet-stream", blob: "AAEC/w==" })).toMatchObject({
      kind: "binary",
      size: 4,
      text: null,
    });
    expect(embeddedView({ uri: "a://t", mimeType: "text/plain", blob: btoa("\u00ff\u00fe") })).toMatchObject({
      kind: "binary",
      size: 2,
    });
    expect(embeddedView({ uri: "a://x", blob: b64("no type") })).toMatchObject({ kind: "binary", mimeType: null });
  });

  it("says when a blob is not base64", () => {
    expect(embeddedView({ uri: "a://b", mimeType: "image/png", blob: "not base64!" })).toEqual({
      problem: "the blob is not base64",
    });
  });
});
