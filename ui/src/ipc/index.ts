// The only module that decides which backend runs; nothing else imports @tauri-apps/*.
import { isTauri } from "@tauri-apps/api/core";
import type { Backend } from "./backend";
import { memoryBackend } from "./memory";
import { tauriBackend } from "./tauri";

export const backend: Backend = isTauri() ? tauriBackend : memoryBackend();
export * from "./backend";
