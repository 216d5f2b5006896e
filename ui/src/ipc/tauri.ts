// The desktop backend: the generated command functions (bindings.ts, from the shell's commands)
// behind one adapter, so a command added in Rust is callable here with no edit, and a renamed
// command or argument fails to type-check at its callers. A command's promise rejects with its
// `{code, message}` error, as the bindings are generated to throw.
import { Channel } from "@tauri-apps/api/core";
import { emit, listen } from "@tauri-apps/api/event";
import type { Backend, Calls } from "./backend";
import { commands } from "./bindings";

/** Every command, with each callback argument handed to the shell as a channel whose messages
 * reach the callback: the one place a UI call becomes an IPC call. */
function adapted(): Calls {
  const calls: Record<string, (...args: unknown[]) => unknown> = {};
  for (const [name, command] of Object.entries(commands) as [string, (...args: unknown[]) => unknown][]) {
    calls[name] = (...args) =>
      command(
        ...args.map((a) => {
          if (typeof a !== "function") return a;
          const c = new Channel<unknown>();
          c.onmessage = a as (message: unknown) => void;
          return c;
        }),
      );
  }
  return calls as Calls;
}

export const tauriBackend: Backend = {
  kind: "desktop",
  ...adapted(),
  menuChecked: (id, checked) => emit("menu-checked", { id, checked }),
  onMenu: (handler) => {
    let stop: (() => void) | undefined;
    let stopped = false;
    listen<string>("menu", (e) => handler(e.payload)).then((un) => (stopped ? un() : (stop = un)));
    return () => {
      stopped = true;
      stop?.();
    };
  },
};
