// The window's theme, as Settings chose it (the settings file, read by the backend): the page
// takes it as `data-theme` on the root, where styles.css turns it into colours ("system" follows
// the system's preference, which the desktop shell also gives GTK).
import { backend, type Theme } from "./ipc";

export function applyTheme(theme: Theme) {
  document.documentElement.dataset.theme = theme;
}

/** The saved theme on the page; a theme that cannot be read leaves the dark default. */
export async function loadTheme(): Promise<void> {
  applyTheme(await backend.themeGet());
}
