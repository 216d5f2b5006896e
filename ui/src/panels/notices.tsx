// Every server notification the window has heard, from the moment it opened: followed once for
// the whole window (so a panel opened later still shows what came before), newest last, at most
// KEEP of them (the wire log keeps them all).
import { createContext, useContext, useEffect, useState, type ReactNode } from "react";
import { backend, errorText, type Notice } from "../ipc";

export const KEEP = 5000;

export interface NoticeStore {
  notices: Notice[];
  /** Log entries that went by too fast to read; the wire log has them. */
  skipped: number;
  error: string | null;
}

const Notices = createContext<NoticeStore>({ notices: [], skipped: 0, error: null });

export function NoticesProvider({ children }: { children: ReactNode }) {
  const [store, setStore] = useState<NoticeStore>({ notices: [], skipped: 0, error: null });
  useEffect(() => {
    let current = true;
    backend
      .notificationsFollow((e) => {
        if (!current) return;
        setStore((s) =>
          e.event === "notice"
            ? { ...s, notices: [...s.notices.slice(-(KEEP - 1)), e.notice] }
            : { ...s, skipped: s.skipped + e.entries },
        );
      })
      .catch((e) => current && setStore((s) => ({ ...s, error: errorText(e) })));
    return () => {
      current = false;
    };
  }, []);
  return <Notices.Provider value={store}>{children}</Notices.Provider>;
}

export const useNotices = () => useContext(Notices);
