// The panels of the selected line, one tab each. Which panels there are, their labels and their
// order are the shell's (`PANELS` in src-tauri/src/menu.rs, generated into the bindings), as its
// View menu lists them (`panel-<id>`, Ctrl+1… by position); the UI only maps each id to its
// component, and a panel id with no component fails to type-check. Each panel gets the line's
// state from the core and keeps its own work.
import type { ReactNode } from "react";
import type { ConnectionState } from "./ipc";
import { PANELS as LISTED } from "./ipc/bindings";
import { TasksPanel } from "./panels/TasksPanel";
import { ToolsPanel } from "./panels/ToolsPanel";
import { ResourcesPanel } from "./panels/ResourcesPanel";
import { PromptsPanel } from "./panels/PromptsPanel";
import { SkillsPanel } from "./panels/SkillsPanel";
import { ServerPanel } from "./panels/ServerPanel";
import { NotificationsPanel } from "./panels/NotificationsPanel";
import { DiagnosticsPanel } from "./panels/DiagnosticsPanel";

/** A panel's id, as the shell lists it. */
export type PanelId = (typeof LISTED)[number][0];

export interface Panel {
  id: PanelId;
  label: string;
  render(line: ConnectionState): ReactNode;
}

/** Each listed panel's component: a key missing here, or one the shell does not list, is a type
 * error. */
const COMPONENTS: Record<PanelId, (line: ConnectionState) => ReactNode> = {
  tools: (line) => <ToolsPanel line={line} />,
  resources: (line) => <ResourcesPanel line={line} />,
  prompts: (line) => <PromptsPanel line={line} />,
  skills: (line) => <SkillsPanel line={line} />,
  server: (line) => <ServerPanel line={line} />,
  notifications: (line) => <NotificationsPanel line={line} />,
  tasks: (line) => <TasksPanel line={line} />,
  diagnostics: (line) => <DiagnosticsPanel line={line} />,
};

export const PANELS: Panel[] = LISTED.map(([id, label]) => ({ id, label, render: COMPONENTS[id] }));

/** The panel a `panel-<id>` menu item or a Ctrl+digit shortcut names, if there is one. */
export function panelOfMenu(id: string): Panel | undefined {
  return PANELS.find((p) => `panel-${p.id}` === id);
}

export function panelOfDigit(key: string): Panel | undefined {
  const n = Number(key);
  return Number.isInteger(n) && n >= 1 ? PANELS[n - 1] : undefined;
}
