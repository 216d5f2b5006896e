// What the main pane offers beside a failed server's last words: the fixes that apply to its
// saved server (add a withheld variable, edit it) and its stderr. The window provides them; a
// line's panels take them from here, so a card need not carry the words to offer the fix.
import { createContext } from "react";

export interface Fixes {
  addEnv?(serverId: string, name: string): void;
  edit?(serverId: string): void;
  showStderr?(conn: number): void;
}

export const LineFixes = createContext<Fixes>({});
