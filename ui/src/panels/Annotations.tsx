// Annotations of a listed resource or of a content block (audience, priority, last modified), as
// badges: who it is for, how much it matters, when it changed. A value of the wrong kind is not
// shown as if it had been read.
import { isObject } from "./line";

/** The annotations of `item` Sonde reads, in words; empty when it has none. */
export function annotationWords(item: unknown): string[] {
  const a = isObject(item) ? item.annotations : undefined;
  if (!isObject(a)) return [];
  return [
    Array.isArray(a.audience) && `for ${a.audience.map(String).join(", ")}`,
    typeof a.priority === "number" && `priority ${a.priority}`,
    typeof a.lastModified === "string" && `modified ${a.lastModified}`,
  ].filter((w): w is string => typeof w === "string");
}

export function Annotations({ item }: { item: unknown }) {
  return annotationWords(item).map((word) => (
    <span key={word} className="badge">
      {word}
    </span>
  ));
}
