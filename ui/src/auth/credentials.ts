// The credentials Sonde keeps, in words: when a token expires, its scopes. Pure; the dialog that
// lists them is components/AuthorizationsDialog.tsx.

/** A span of seconds as a person reads it, rounded down: "45 s", "59 min", "1 h 30 min", "3 days". */
export function spanText(seconds: number): string {
  const s = Math.floor(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 48 * 3600) {
    const h = Math.floor(s / 3600);
    const min = Math.floor((s % 3600) / 60);
    return min ? `${h} h ${min} min` : `${h} h`;
  }
  return `${Math.floor(s / 86400)} days`;
}

/** When a token expires, seen at `now` (both in seconds since the Unix epoch); null: the
 * authorization server did not say. */
export function expiryText(expiresAt: number | null, now: number): string {
  if (expiresAt === null) return "no expiry given";
  const left = expiresAt - now;
  if (left > 0) return `expires in ${spanText(left)}`;
  return -left < 60 ? "expired just now" : `expired ${spanText(-left)} ago`;
}

/** The scopes a token was granted (a space-separated list), each once. */
export function scopesOf(scope: string | null): string[] {
  return [...new Set((scope ?? "").split(/\s+/).filter(Boolean))];
}
