// Numbers as a form reads them: the JSON number grammar for number fields and whole numbers in
// decimal digits for integer fields, and words for what does not fit. It refuses what
// JavaScript's Number() would quietly accept: a blank is not 0, `0x10` is not 16, `1,5` is not
// a number at all, and a value too large to send exactly is not rounded.

/** JSON's number: an optional minus, digits without a leading zero, a fraction, an exponent. */
const JSON_NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;
/** An integer field's text: an optional minus and decimal digits, nothing else. */
const JSON_INTEGER = /^-?(0|[1-9][0-9]*)$/;

/** The value of a number or integer field's text, or null when the text is not one. Space around
 * the number is allowed, as JSON allows it around a value. */
export function numberOf(kind: "number" | "integer", text: string): number | null {
  const t = text.trim();
  if (!(kind === "integer" ? JSON_INTEGER : JSON_NUMBER).test(t)) return null;
  const n = Number(t);
  if (!Number.isFinite(n)) return null;
  if (kind === "integer" && !Number.isSafeInteger(n)) return null;
  return n;
}

/** Why a field's text is not a number of its kind, as the end of a sentence naming the field. */
export function numberProblem(kind: "number" | "integer", text: string): string {
  const t = text.trim();
  const is = `is ${JSON.stringify(text)},`;
  if (t === "") return "is blank: type a number, or empty the field to leave it out";
  const radix = /^(-?)0([xob])([0-9a-f]+)$/i.exec(t);
  if (radix) {
    const base = { x: 16, o: 8, b: 2 }[radix[2].toLowerCase() as "x" | "o" | "b"];
    const n = parseInt(radix[3], base);
    const decimal = Number.isSafeInteger(n) && [...radix[3]].every((d) => parseInt(d, base) < base);
    return `${is} not a JSON number: write it in decimal digits${decimal ? ` (${radix[1]}${n})` : ""}`;
  }
  if (JSON_NUMBER.test(t)) {
    const n = Number(t);
    if (!Number.isFinite(n)) return `${is} too large for a JSON number`;
    if (kind === "integer" && !Number.isInteger(n)) return `must be a whole number, not ${t}`;
    if (kind === "integer" && !Number.isSafeInteger(n))
      return `${is} beyond ±${Number.MAX_SAFE_INTEGER}: it would not be sent exactly`;
    if (kind === "integer") return `${is} not written as an integer: write it in digits only (${n})`;
  }
  if (/^-?[0-9]+,[0-9]+$/.test(t)) return `${is} not a JSON number: use a point for decimals (${t.replace(",", ".")})`;
  return kind === "integer"
    ? `${is} not an integer: decimal digits with an optional minus, like -12 or 42`
    : `${is} not a JSON number: digits with an optional minus, point and exponent, like -12.5 or 3e8`;
}
