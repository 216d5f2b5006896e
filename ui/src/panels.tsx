// The panels of the selected line, one tab each, in the order of the View menu's items
// (`panel-<id>`, Ctrl+1… by position). Each panel gets the line's state from the core and
// keeps its own work; a panel added here appears in the tab strip and answers its shortcut.
import type { ReactNode } from "react";
import type { ConnectionState } from "./ipc";
import { TasksPanel } from "./components/TasksPanel";
import { ToolsPanel } from "./components/ToolsPanel";

export interface Panel {
  id: string;
  label: string;
  render(line: ConnectionState): ReactNode;
}

export const PANELS: Panel[] = [
  { id: "tools", label: "Tools", render: (line) => <ToolsPanel line={line} /> },
  { id: "tasks", label: "Tasks", render: (line) => <TasksPanel line={line} /> },
];

/** The panel a `panel-<id>` menu item or a Ctrl+digit shortcut names, if there is one. */
export function panelOfMenu(id: string): Panel | undefined {
  return PANELS.find((p) => `panel-${p.id}` === id);
}

export function panelOfDigit(key: string): Panel | undefined {
  const n = Number(key);
  return Number.isInteger(n) && n >= 1 ? PANELS[n - 1] : undefined;
}
