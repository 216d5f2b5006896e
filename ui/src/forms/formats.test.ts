import { describe, expect, it } from "vitest";
import { formatExample, formatProblem } from "./formats";
import { problemsOf } from "./schema";

const contact = {
  type: "object",
  properties: {
    email: { type: "string", format: "email" },
    homepage: { type: "string", format: "uri" },
    birthdate: { type: "string", format: "date" },
    at: { type: "string", format: "date-time" },
    alarm: { type: "string", format: "time" },
    color: { type: "string", format: "color" },
  },
};

const valid: Record<string, string[]> = {
  email: ["ada@example.com", "a.b+c@mail.example.org", "root@localhost", "x@[127.0.0.1]"],
  uri: ["https://example.com/page?q=1#top", "mailto:ada@example.com", "urn:isbn:0451450523", "http://h/%20x"],
  date: ["2025-01-31", "2024-02-29", "2000-02-29"],
  "date-time": ["2025-01-31T09:30:00Z", "2025-01-31t09:30:00.123+02:00", "2016-12-31T23:59:60Z"],
  time: ["09:30:00Z", "23:59:59.5-05:30"],
};

const invalid: Record<string, string[]> = {
  email: ["ada", "ada@", "@example.com", "a b@example.com", "ada@exa mple.com", "ada@-x.com", "a@b@c"],
  uri: ["example.com/page", "/relative/path", "https://exa mple.com", "https://example.com/a b", "1http://x"],
  date: ["31/01/2025", "2025-1-31", "2025-13-01", "2025-02-29", "1900-02-29", "2025-04-31", "2025-01-31T00:00:00Z"],
  "date-time": [
    "2025-01-31",
    "2025-01-31 09:30:00Z",
    "2025-01-31T09:30:00",
    "2025-01-31T24:00:00Z",
    "2025-02-30T00:00:00Z",
  ],
  time: ["09:30", "09:30:00", "25:00:00Z", "09:60:00Z", "09:30:00+25:00"],
};

describe("string formats", () => {
  it("accepts what each checked format allows", () => {
    for (const [format, texts] of Object.entries(valid))
      for (const text of texts) expect(formatProblem(format, text), `${format}: ${text}`).toBeNull();
  });

  it("refuses what each checked format does not, in words", () => {
    for (const [format, texts] of Object.entries(invalid))
      for (const text of texts) expect(formatProblem(format, text), `${format}: ${text}`).toMatch(/^not (a|an) /);
  });

  it("says which part of a date or a time is wrong", () => {
    expect(formatProblem("date", "2025-13-01")).toBe("not a date: there is no month 13");
    expect(formatProblem("date", "2025-02-29")).toBe("not a date: 2025-02 has no day 29");
    expect(formatProblem("date-time", "2025-01-31T24:00:00Z")).toBe("not a time: there is no 24:00:00");
    expect(formatProblem("uri", "https://example.com/a b")).toContain("a space is %20");
    expect(formatProblem("uri", "example.com")).toContain("it needs a scheme");
  });

  it("leaves other formats to the server", () => {
    expect(formatProblem("color", "not a colour")).toBeNull();
    expect(formatProblem(undefined, "anything")).toBeNull();
    expect(formatExample("color")).toBeUndefined();
    expect(formatExample("email")).toBe("name@example.com");
  });

  it("is a problem by the field on submit", () => {
    expect(
      problemsOf(contact, {
        email: "ada.example.com",
        homepage: "example.com",
        birthdate: "2025-02-30",
        at: "2025-01-31T09:30:00Z",
        color: "teal",
      }),
    ).toEqual([
      { path: "email", message: 'email is "ada.example.com", not an email address (like name@example.com)' },
      {
        path: "homepage",
        message: 'homepage is "example.com", not an absolute URI: it needs a scheme, like https://example.com/page',
      },
      { path: "birthdate", message: 'birthdate is "2025-02-30", not a date: 2025-02 has no day 30' },
    ]);
  });
});
