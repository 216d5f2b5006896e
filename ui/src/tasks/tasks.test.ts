import { describe, expect, it } from "vitest";
import type { TaskStatus, TaskView } from "../ipc";
import { applyTask, durationText, statusText, timeText } from "./tasks";

const view = (conn: number, id: string, version: number, status: TaskStatus): TaskView =>
  ({
    conn,
    version,
    task: {
      taskId: id,
      status,
      statusMessage: null,
      createdAt: null,
      lastUpdatedAt: null,
      ttlMs: null,
      pollIntervalMs: null,
      terminal: ["completed", "failed", "cancelled"].includes(status),
    },
    tool: "research",
    outcome: null,
    error: null,
    following: true,
  }) as TaskView;

describe("tasks", () => {
  it("keep the newest version of each task in the order they became known", () => {
    let tasks = applyTask([], view(1, "a", 3, "working"));
    tasks = applyTask(tasks, view(1, "b", 4, "working"));
    tasks = applyTask(tasks, view(1, "a", 2, "input_required"));
    expect(tasks.map((t) => [t.task.taskId, t.task.status])).toEqual([
      ["a", "working"],
      ["b", "working"],
    ]);
    tasks = applyTask(tasks, view(1, "a", 5, "completed"));
    expect(tasks.map((t) => [t.task.taskId, t.task.status])).toEqual([
      ["a", "completed"],
      ["b", "working"],
    ]);
    // The same id on another connection is another task.
    expect(applyTask(tasks, view(2, "a", 1, "working"))).toHaveLength(3);
  });

  it("word statuses, times and durations from what the core said, never inventing one", () => {
    expect(statusText("input_required")).toBe("needs input");
    expect(timeText(null)).toBe("not said");
    expect(timeText("yesterday-ish")).toBe("yesterday-ish");
    expect(timeText("2025-11-25T10:30:00.250Z")).toMatch(/^\d\d:\d\d:00\.250$/);
    expect(durationText(null)).toBe("not said");
    expect(durationText(250)).toBe("250 ms");
    expect(durationText(1500)).toBe("1.50 s");
    expect(durationText(300_000)).toBe("5 min 0 s");
  });
});
