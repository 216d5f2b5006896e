// What the core found wrong with a server's data (a tool, a result, a prompt, a read, a
// question), as a list under it. The panels and the dialogs both show it, so it is a component
// of its own rather than a part of one panel.

/** What the core found wrong with `what`, as a list under it; nothing when nothing was. */
export function Problems({ problems, what }: { problems: string[]; what: string }) {
  if (!problems.length) return null;
  return (
    <ul className="problems" aria-label={`Problems with ${what}`}>
      {problems.map((p, i) => (
        <li key={i}>⚠ {p}</li>
      ))}
    </ul>
  );
}
