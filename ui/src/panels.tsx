// The panels of the selected line, one tab each, in the order of the View menu's items
// (`panel-<id>`, Ctrl+1… by position). Each panel gets the line's state from the core and
// keeps its own work; a panel added here appears in the tab strip and answers its shortcut.
import type { ReactNode } from "react";
import type { ConnectionState } from "./ipc";
import { TasksPanel } from "./panels/TasksPanel";
import { ToolsPanel } from "./panels/ToolsPanel";
import { ResourcesPanel } from "./panels/ResourcesPanel";
import { PromptsPanel } from "./panels/PromptsPanel";
import { ServerPanel } from "./panels/ServerPanel";
import { NotificationsPanel } from "./panels/NotificationsPanel";
import { DiagnosticsPanel } from "./panels/DiagnosticsPanel";

export interface Panel {
  id: string;
  label: string;
  render(line: ConnectionState): ReactNode;
}

export const PANELS: Panel[] = [
  { id: "tools", label: "Tools", render: (line) => <ToolsPanel line={line} /> },
  { id: "resources", label: "Resources", render: (line) => <ResourcesPanel line={line} /> },
  { id: "prompts", label: "Prompts", render: (line) => <PromptsPanel line={line} /> },
  { id: "server", label: "Server", render: (line) => <ServerPanel line={line} /> },
  { id: "notifications", label: "Notifications", render: (line) => <NotificationsPanel line={line} /> },
  { id: "tasks", label: "Tasks", render: (line) => <TasksPanel line={line} /> },
  { id: "diagnostics", label: "Diagnostics", render: (line) => <DiagnosticsPanel line={line} /> },
];

/** The panel a `panel-<id>` menu item or a Ctrl+digit shortcut names, if there is one. */
export function panelOfMenu(id: string): Panel | undefined {
  return PANELS.find((p) => `panel-${p.id}` === id);
}

export function panelOfDigit(key: string): Panel | undefined {
  const n = Number(key);
  return Number.isInteger(n) && n >= 1 ? PANELS[n - 1] : undefined;
}
