// The string formats a form checks before sending (JSON Schema's `format`): email, uri, date,
// time and date-time, each with words for what is wrong and an example to type. Other formats
// are the server's to judge, and a person can send anything from the raw JSON editor.

/** What a field of each checked format looks like, shown as its placeholder. */
const EXAMPLES: Record<string, string> = {
  email: "name@example.com",
  uri: "https://example.com/page",
  date: "YYYY-MM-DD",
  time: "hh:mm:ssZ",
  "date-time": "YYYY-MM-DDThh:mm:ssZ",
};

export const formatExample = (format: string | undefined): string | undefined =>
  format === undefined ? undefined : EXAMPLES[format];

const LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?";
/** A mailbox: a local part without spaces or @, then a domain of labels or an address literal. */
const EMAIL = new RegExp(`^[^\\s@"(),:;<>[\\]\\\\]+@(${LABEL}(\\.${LABEL})*|\\[[0-9A-Fa-f:.]+\\])$`);
/** An absolute URI (RFC 3986): a scheme, a colon, then only the characters a URI may hold. */
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:([A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^(\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;

const daysIn = (year: number, month: number) =>
  month === 2
    ? year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
      ? 29
      : 28
    : [4, 6, 9, 11].includes(month)
      ? 30
      : 31;

function dateProblem(text: string): string | null {
  const m = DATE.exec(text);
  if (!m) return "not a date as YYYY-MM-DD (like 2025-01-31)";
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12) return `not a date: there is no month ${m[2]}`;
  if (day < 1 || day > daysIn(year, month)) return `not a date: ${m[1]}-${m[2]} has no day ${m[3]}`;
  return null;
}

function timeProblem(text: string): string | null {
  const m = TIME.exec(text);
  if (!m) return "not a time as hh:mm:ss with a zone (like 09:30:00Z or 09:30:00+02:00)";
  const hour = Number(m[1]);
  const minute = Number(m[2]);
  const second = Number(m[3]);
  if (hour > 23 || minute > 59 || second > 60) return `not a time: there is no ${m[1]}:${m[2]}:${m[3]}`;
  if (m[6] !== undefined && (Number(m[6]) > 23 || Number(m[7]) > 59))
    return `not a time: there is no zone offset ${m[5]}`;
  return null;
}

/** Why `text` is not of `format`, as words to follow `is "<text>",`; null when it is, or when
 * the format is not one a form checks. */
export function formatProblem(format: string | undefined, text: string): string | null {
  switch (format) {
    case "email":
      return EMAIL.test(text) ? null : "not an email address (like name@example.com)";
    case "uri":
      if (URI.test(text)) return null;
      return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(text)
        ? "not a URI: spaces and some characters must be percent-encoded (a space is %20)"
        : "not an absolute URI: it needs a scheme, like https://example.com/page";
    case "date":
      return dateProblem(text);
    case "time":
      return timeProblem(text);
    case "date-time": {
      const at = text.search(/[Tt]/);
      if (at < 0) return "not a date and time as YYYY-MM-DDThh:mm:ssZ (like 2025-01-31T09:30:00Z)";
      return dateProblem(text.slice(0, at)) ?? timeProblem(text.slice(at + 1));
    }
    default:
      return null;
  }
}
