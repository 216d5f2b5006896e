"""The 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) for the Python peer.

No published server serves the extension yet, so this one is written on the SDK's own extension
interface (`mcp.server.extension.Extension`: a `tools/call` interceptor and three new methods).
A `research` call from a client that declares the extension returns `resultType: "task"`; then
`tasks/get` reports it, `tasks/update` takes the answers to its `inputRequests`, `tasks/cancel`
stops it. A task moves on the clock, one stage every STAGE seconds, computed when asked, so it
works the same over stdio and over stateless HTTP with no worker outliving a request.
Legacy (2025-11-25) calls of `research` are answered at once by the plain tool.
"""
import datetime
import secrets
import time
from typing import Any

from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver.server import require_client_extension
from mcp.shared.exceptions import MCPError
from mcp_types import RequestParams

TASKS = "io.modelcontextprotocol/tasks"
STAGE = 0.3
STAGES = ["Gathering sources", "Analyzing content", "Writing the report"]
POLL_MS = 100
TTL_MS = 60_000


class TaskParams(RequestParams):
    task_id: str


class UpdateParams(TaskParams):
    input_responses: dict[str, Any] = {}


def _iso(at: float) -> str:
    return datetime.datetime.fromtimestamp(at, datetime.timezone.utc).isoformat().replace("+00:00", "Z")


class Research:
    """One task. Its progress is time spent working; waiting for an answer does not count."""

    def __init__(self, topic: str, ambiguous: bool, fail: bool):
        self.id = secrets.token_hex(16)
        self.topic, self.ambiguous, self.fail = topic, ambiguous, fail
        self.created = time.time()
        self.answer: str | None = None
        self.answered_at: float | None = None
        self.cancelled = False
        self.updated = self.created
        self.last: tuple[str, str] | None = None

    def _progress(self, now: float) -> float:
        worked = now - self.created
        if not self.ambiguous:
            return worked
        if self.answer is None:
            return min(worked, STAGE)
        return STAGE + (now - self.answered_at)

    def state(self) -> dict[str, Any]:
        now = time.time()
        extra: dict[str, Any] = {}
        if self.cancelled:
            status, message = "cancelled", "Cancelled by request."
        elif self.ambiguous and self.answer is None and now - self.created >= STAGE:
            status, message = "input_required", f'"{self.topic}" can be read more than one way.'
            extra["inputRequests"] = {"interpretation": {"method": "elicitation/create", "params": {
                "mode": "form",
                "message": f'Which "{self.topic}" do you mean?',
                "requestedSchema": {"type": "object", "properties": {"interpretation": {
                    "type": "string", "title": "Interpretation",
                    "enum": ["technical", "historical"]}}, "required": ["interpretation"]},
            }}}
        else:
            stage = int(self._progress(now) / STAGE)
            if stage >= len(STAGES) and self.fail:
                status, message = "failed", "The sources could not be reached."
                extra["error"] = {"code": -32603, "message": "sources unreachable"}
            elif stage >= len(STAGES):
                status, message = "completed", "Done."
                reading = f" ({self.answer})" if self.answer else ""
                extra["result"] = {"content": [{"type": "text", "text": f"Report on {self.topic}{reading}"}],
                                   "isError": False}
            else:
                status, message = "working", f"{STAGES[stage]}..."
        if (status, message) != self.last:
            self.last, self.updated = (status, message), now
        return {"taskId": self.id, "status": status, "statusMessage": message,
                "createdAt": _iso(self.created), "lastUpdatedAt": _iso(self.updated),
                "ttlMs": TTL_MS, "pollIntervalMs": POLL_MS, **extra}


class TasksExtension(Extension):
    identifier = TASKS

    def __init__(self) -> None:
        self.tasks: dict[str, Research] = {}

    def _task(self, params: TaskParams) -> Research:
        task = self.tasks.get(params.task_id)
        if task is None:
            raise MCPError(code=-32602, message="Failed to retrieve task: Task not found")
        return task

    async def intercept_tool_call(self, params, ctx, call_next):
        if params.name != "research" or not ctx.protocol_version.startswith("2026"):
            return await call_next(ctx)
        require_client_extension(ctx, TASKS)
        args = params.arguments or {}
        task = Research(str(args.get("topic", "")), bool(args.get("ambiguous")), bool(args.get("fail")))
        self.tasks[task.id] = task
        state = task.state()
        return {"resultType": "task", **{k: v for k, v in state.items() if k not in ("result", "error")}}

    def methods(self):
        async def get(ctx, params: TaskParams):
            require_client_extension(ctx, TASKS)
            return self._task(params).state()

        async def update(ctx, params: UpdateParams):
            require_client_extension(ctx, TASKS)
            task = self._task(params)
            answer = params.input_responses.get("interpretation")
            if task.answer is None and isinstance(answer, dict):
                content = answer.get("content") or {}
                task.answer = str(content.get("interpretation", answer.get("action", "declined")))
                task.answered_at = time.time()
            return {}

        async def cancel(ctx, params: TaskParams):
            require_client_extension(ctx, TASKS)
            task = self._task(params)
            if task.state()["status"] in ("working", "input_required"):
                task.cancelled = True
            return {}

        return [
            MethodBinding("tasks/get", TaskParams, get),
            MethodBinding("tasks/update", UpdateParams, update),
            MethodBinding("tasks/cancel", TaskParams, cancel),
        ]
