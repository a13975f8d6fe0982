"""`CodingEnv`: a coding task as a Gymnasium 1.x multi-turn environment.

    import gymnasium as gym, codegym
    env = gym.make("codegym/Toy-v0")
    obs, info = env.reset(seed=0)            # obs: chat messages (system prompt, task)
    obs, reward, terminated, truncated, info = env.step(
        '<tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>')

Each observation is the whole context the policy should see next; `info["new_messages"]`
holds this step's additions. The action is the model's completion text (tool calls parsed
by a pluggable parser) or an already-structured tool call. `info["timing"]` (reset, exec,
grade and state-key seconds) comes at reset and with the episode's last step; `env.timing`
holds the running totals. The reward is 0 until the
episode ends (submit, max turns, wall clock, too many parse errors, or a sandbox failure),
then a weighted sum of named components, graded in a pristine sandbox.

Guards (anti-hack wrappers) hook in between parsing and execution through
`add_call_interceptor`: a blocked call still costs a turn and enters the history.

Misuse is an error, not a silent default: `step()` with something that is not an action (None,
a number, bytes) raises TypeError without using a turn; `reset()` with an unknown option key
(valid: `RESET_OPTIONS`) or task id, or an unknown sandbox backend, raises ValueError. A grade
whose hidden tests could not be applied (`INFRA_GRADE_FAILURES`) masks the episode as a
`sandbox_error` instead of scoring it 0.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym

from codegym.sandbox import Sandbox, SandboxConfig, SandboxError, SandboxPool
from codegym.sandbox.pool import BACKENDS
from codegym.tasks.loader import load_tasks
from codegym.tasks.task import Task
from codegym.toolcall import ToolCall

from .grade_cache import SHARED_GRADE_CACHE, GradeCache
from .grader import SandboxGrader, workspace_bytes
from .parsing import Parser, get_parser
from .pools import pool_for_task, shared_pool, task_sandbox_config
from .prompts import render_system_prompt, render_task_prompt
from .rewards import DEFAULT_WEIGHTS, reward_components, weighted_reward
from .spaces import ChatMessages, ToolAction
from .state_keys import StateKeyFn, get_state_key_fn
from .tools import DEFAULT_TOOLS, ToolResult, ToolRunner, tool_schemas, validate_call

STOP_REASONS = ("submitted", "max_turns", "wall_clock", "parse_error_limit", "sandbox_error")

#: the keys `reset(options=...)` understands.
RESET_OPTIONS = ("task_id",)

#: grading stages (`GradeResult.status`, from the grading script's status lines) whose failure is the
#: environment's fault, not the agent's: the episode is masked, never scored 0. The agent cannot cause
#: them: test files are reset to `base_commit` before the hidden tests are applied.
INFRA_GRADE_FAILURES = {"test_patch": ("failed",), "workdir": ("missing",)}

#: An interceptor sees each validated call before it runs; returning a `ToolResult` means
#: "do not run it, answer this instead" (a guard's dummy result). It may add events to
#: `env.pending_events`.
CallInterceptor = Callable[[ToolCall, "CodingEnv"], ToolResult | None]


@dataclass
class EnvSnapshot:
    """Everything needed to continue an episode elsewhere (Tree-GRPO branches)."""

    task_id: str
    messages: list[dict[str, Any]]
    turn: int
    parse_errors: int
    elapsed_s: float
    last_tool_output: str
    sandbox: bytes
    extra: dict[str, Any] = field(default_factory=dict)


def cap_output(text: str, max_chars: int) -> str:
    """Keep the head and the tail of a long tool output, with a marker stating the output's
    true size (counting what the sandbox already elided) and how much is not shown."""
    from codegym.sandbox.output import elide

    return elide(text, max_chars)


class CodingEnv(gym.Env):
    """A coding task in a sandbox. See the module docstring.

    Args:
        tasks: a built-in suite name, a JSONL path, or a sequence of `Task`s.
        max_turns: tool calls (turns) before the episode is truncated and graded.
        wall_clock_s: seconds before the episode is truncated and graded.
        parse_error_limit: malformed turns (in total) that end the episode.
        parser: tool-call format ('any', 'hermes', 'json', 'bash') or a callable.
        tools: tool names offered to the agent.
        reward_weights: weights of the named reward components (default correctness 1).
        state_key: 'workspace', 'observation', 'both' or a callable `(env) -> str`.
        backend: sandbox backend ('docker', 'local', 'auto').
        pool: a `SandboxPool` to share; default a process-wide pool per image and backend.
        max_output_chars: tool output kept in the context per turn (head and tail).
        grade_cache: True grades each distinct final diff of a task once per process (the shared
            `codegym.envs.grade_cache.GradeCache`; deterministic tests only), or a `GradeCache`.
        repos_dir: where an "owner/name" task `repo` is looked up (`<dir>/<owner>/<name>`, a clone, a
            bare repository or `<name>.bundle`); default `$CODEGYM_REPOS_DIR`.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, tasks: str | Path | Sequence[Task] = "toy", *, max_turns: int = 30,
                 wall_clock_s: float = 1800.0, parse_error_limit: int = 5, parser: str | Parser = "any",
                 tools: Sequence[str] = DEFAULT_TOOLS, reward_weights: Mapping[str, float] | None = None,
                 state_key: str | StateKeyFn = "workspace", backend: str = "auto",
                 pool: SandboxPool | None = None, sandbox_config: SandboxConfig | None = None,
                 bash_timeout: float = 60.0, test_timeout: float = 300.0, grade_timeout: float = 600.0,
                 max_output_chars: int = 10_000, system_prompt: str | None = None,
                 grade_cache: bool | GradeCache = False, render_mode: str | None = None,
                 repos_dir: str | Path | None = None):
        super().__init__()
        self.tasks: list[Task] = list(load_tasks(tasks, repos_dir=repos_dir) if isinstance(tasks, (str, Path))
                                      else tasks)
        if not self.tasks:
            raise ValueError(f"no tasks loaded from {tasks!r}")
        self._by_id = {t.instance_id: t for t in self.tasks}
        self.max_turns, self.wall_clock_s, self.parse_error_limit = max_turns, wall_clock_s, parse_error_limit
        self.parser = get_parser(parser)
        self.tool_names = tuple(tools)
        unknown_tools = [t for t in self.tool_names if t not in DEFAULT_TOOLS]
        if unknown_tools:
            raise ValueError(f"unknown tools {unknown_tools}; known: {', '.join(DEFAULT_TOOLS)}")
        self.reward_weights = dict(DEFAULT_WEIGHTS if reward_weights is None else reward_weights)
        weighted_reward(dict.fromkeys(reward_components_names(), 0.0), self.reward_weights)  # validates the names
        self.state_key_fn = get_state_key_fn(state_key)
        if backend not in BACKENDS:
            raise ValueError(f"unknown sandbox backend {backend!r}; use one of {', '.join(map(repr, BACKENDS))}")
        self.backend, self.sandbox_config = backend, sandbox_config
        self._pool = pool
        self.bash_timeout, self.test_timeout = bash_timeout, test_timeout
        self.grade_timeout, self.max_output_chars = grade_timeout, max_output_chars
        self.system_prompt = system_prompt
        self.grade_cache = SHARED_GRADE_CACHE if grade_cache is True else (grade_cache or None)
        self.render_mode = render_mode
        self.observation_space = ChatMessages()
        self.action_space = ToolAction()
        self.interceptors: list[CallInterceptor] = []
        #: Called as hook(env, "reset" | "restore") at the end of every reset() and restore():
        #: guards set up their per-episode state here.
        self.reset_hooks: list[Callable[[CodingEnv, str], None]] = []
        self.pending_events: list[dict[str, Any]] = []
        self.extra_rewards: dict[str, float] = {"hack_penalty": 0.0}
        self.sandbox: Sandbox | None = None
        self.task: Task | None = None
        self.messages: list[dict[str, Any]] = []
        self.last_state_key = "unknown"
        self._done = True

    # ---- plumbing --------------------------------------------------------------------------

    def pool_for(self, task: Task) -> SandboxPool:
        """The agent's sandboxes: the env's own pool when one was given, else a shared pool of the
        task's image with commands in its workdir (`codegym.envs.pools.task_sandbox_config`). A task
        whose image holds its repository gets it checked out at base_commit and scrubbed there."""
        if task.environment is not None:  # its own image: built by `codegym images build --tasks`
            from codegym.sandbox.task_images import require_task_image

            require_task_image(task)
        if self._pool is not None:
            return pool_for_task(task, self._pool)
        return pool_for_task(task, shared_pool(None, self.backend, task_sandbox_config(task, self.sandbox_config)))

    def grade_pool_for(self, task: Task) -> SandboxPool:
        """Grading sandboxes: the env's own pool when one was given, else a shared grading pool
        (separate from the agents', see `codegym.envs.pools.shared_pool`), configured as `pool_for`'s."""
        if self._pool is not None:
            return pool_for_task(task, self._pool)
        config = task_sandbox_config(task, self.sandbox_config)
        return pool_for_task(task, shared_pool(None, self.backend, config, purpose="grade"))

    def add_call_interceptor(self, fn: CallInterceptor) -> None:
        self.interceptors.append(fn)

    def _release(self) -> None:
        if self.sandbox is not None and self.task is not None:
            try:
                self.pool_for(self.task).release(self.sandbox)
            except SandboxError:
                self.sandbox.close()
        self.sandbox = None

    def _tools(self) -> ToolRunner:
        return ToolRunner(self.sandbox, self.task.workdir, self.task.visible_tests, self.bash_timeout,
                          max_timeout=max(self.bash_timeout, 600.0), test_timeout=self.test_timeout)

    # ---- Gymnasium API -----------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        options = self._check_reset_options(options)  # before anything changes
        super().reset(seed=seed)
        t0 = time.monotonic()
        self._release()
        if "task_id" in options:
            self.task = self._by_id[options["task_id"]]
        else:
            self.task = self.tasks[int(self.np_random.integers(len(self.tasks)))]
        self.sandbox = self.pool_for(self.task).acquire(workspace_bytes(self.task))
        self.turn = self.parse_errors = 0
        self.last_tool_output = ""
        self.started = time.monotonic()
        self.timing = {"reset_s": 0.0, "exec_s": 0.0, "grade_s": 0.0, "state_key_s": 0.0}
        self.extra_rewards = {"hack_penalty": 0.0}
        self.pending_events = []
        self.hack_events: list[dict[str, Any]] = []
        self.history: list[dict[str, Any]] = []
        system = self.system_prompt or render_system_prompt(self.tool_names, self.task)
        self.messages = [{"role": "system", "content": system},
                         {"role": "user", "content": render_task_prompt(self.task)}]
        self.history = copy.deepcopy(self.messages)
        self._done = False
        info = {"task_id": self.task.instance_id, "tools": tool_schemas(self.tool_names),
                "new_messages": copy.deepcopy(self.messages), "turn": 0, "hack_events": []}
        for hook in self.reset_hooks:
            hook(self, "reset")
        info["state_key"] = self._state_key()
        self.timing["reset_s"] = time.monotonic() - t0
        info["timing"] = dict(self.timing)
        return copy.deepcopy(self.messages), info

    def _check_reset_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """The reset options as a dict; an unknown key or task id is a ValueError (a typo must not
        quietly start a random task)."""
        if options is None:
            return {}
        if not isinstance(options, Mapping):
            raise TypeError(f"reset(options=...) takes a mapping, not {type(options).__name__}")
        unknown = sorted(set(options) - set(RESET_OPTIONS))
        if unknown:
            raise ValueError(f"unknown reset option(s) {unknown}; valid keys: {', '.join(RESET_OPTIONS)}")
        if "task_id" in options and options["task_id"] not in self._by_id:
            some = ", ".join(list(self._by_id)[:5]) + (", ..." if len(self._by_id) > 5 else "")
            raise ValueError(f"unknown task_id {options['task_id']!r}; this env has {len(self._by_id)} tasks: {some}")
        return dict(options)

    def step(self, action: str | ToolCall | Mapping[str, Any]):
        if self._done:
            raise RuntimeError("the episode is over: call reset() before step()")
        text, call, error, ignored = self._read_action(action)  # TypeError for a non-action: no turn used
        self.turn += 1
        new = [{"role": "assistant", "content": text}]
        info: dict[str, Any] = {"turn": self.turn, "parse_error": None, "tool_call": None}
        stop = None
        train_mask = True
        result: ToolResult | None = None
        if error is not None:
            self.parse_errors += 1
            info["parse_error"] = error
            new.append({"role": "user", "content": f"Error: {error}"})
            if self.parse_errors >= self.parse_error_limit:
                stop = "parse_error_limit"
        else:
            info["tool_call"] = call.to_dict()
            try:
                result = self._intercept(call)
                if result is None:
                    result = self._tools().run(call)
                self.timing["exec_s"] += result.exec_s
            except SandboxError as exc:
                result = ToolResult(f"Error: the sandbox failed: {exc}", error=True)
                stop, train_mask = "sandbox_error", False
                info["sandbox_error"] = str(exc)  # a masked episode always says why
            self.last_tool_output = result.output
            info["exit_code"] = result.exit_code  # None for non-command tools; read by compaction digests
            content = cap_output(result.output, self.max_output_chars)
            if ignored:
                content += f"\n[note: one tool call runs per turn; {ignored} more call(s) were not run]"
            new.append({"role": "tool", "name": call.name, "content": content})
            if result.submitted:
                stop = "submitted"
        if stop is None and self.turn >= self.max_turns:
            stop = "max_turns"
        if stop is None and time.monotonic() - self.started > self.wall_clock_s:
            stop = "wall_clock"
        self.messages.extend(new)
        self.history.extend(copy.deepcopy(new))
        info["new_messages"] = copy.deepcopy(new)
        info["hack_events"], self.pending_events = self.pending_events, []
        self.hack_events.extend(info["hack_events"])
        reward, terminated, truncated = 0.0, False, False
        if stop is not None:
            reward = self._finish(stop, info, train_mask)
            terminated = stop in ("submitted", "parse_error_limit")
            truncated = not terminated
            info["timing"] = dict(self.timing)  # only at the end: steps stay deterministic (check_env)
        elif error is not None:
            info["state_key"] = self.last_state_key  # nothing ran: the state is unchanged
        else:
            info["state_key"] = self._safe_state_key()
        return copy.deepcopy(self.messages), reward, terminated, truncated, info

    def _read_action(self, action) -> tuple[str, ToolCall | None, str | None, int]:
        """(assistant text, the call to run or None, the parse/validation error, calls ignored).

        A malformed action (no call in the text, a mapping without a name) is the policy's mistake:
        an error it sees, at the cost of a turn. Anything that is not an action at all (None, a
        number, bytes) is the caller's: a TypeError, raised before the turn is counted."""
        if isinstance(action, str):
            text = action
            parsed = self.parser(action)
            if not parsed.ok:
                return text, None, parsed.error or "no tool call found", 0
            call = parsed.calls[0]
            extra = len(parsed.calls) - 1
        elif isinstance(action, (ToolCall, Mapping)):
            if isinstance(action, Mapping):
                text = json.dumps(dict(action), default=repr)
                if not isinstance(action.get("name"), str) or not isinstance(action.get("arguments") or {}, Mapping):
                    return text, None, 'a structured call needs {"name": str, "arguments": {...}}', 0
            call = action if isinstance(action, ToolCall) else ToolCall.from_dict(action)
            text = json.dumps({"name": call.name, "arguments": dict(call.arguments)}, default=repr)
            text = f"<tool_call>{text}</tool_call>"
            extra = 0
        else:
            raise TypeError(f"step() takes the model's completion text (str), a ToolCall or a mapping "
                            f'{{"name": ..., "arguments": {{...}}}}, not {type(action).__name__}; decode bytes first')
        problem = validate_call(call, self.tool_names)
        if problem:
            return text, None, problem, 0
        return text, call, None, extra

    def _intercept(self, call: ToolCall) -> ToolResult | None:
        for fn in self.interceptors:
            answer = fn(call, self)
            if answer is not None:
                return answer
        return None

    def _state_key(self) -> str:
        t0 = time.monotonic()
        try:
            self.last_state_key = self.state_key_fn(self)
            return self.last_state_key
        finally:
            self.timing["state_key_s"] += time.monotonic() - t0

    def _safe_state_key(self) -> str:
        try:
            return self._state_key()
        except SandboxError:
            return "unknown"

    def _finish(self, stop: str, info: dict[str, Any], train_mask: bool) -> float:
        """Grade (unless the sandbox is gone), fill the end-of-episode info, release."""
        self._done = True
        info["stop_reason"] = stop
        grade_result = None
        if stop != "sandbox_error":
            try:
                grader = SandboxGrader(self.grade_pool_for(self.task), self.grade_timeout)
                diff = grader.agent_diff(self.sandbox, self.task)
                info["diff"] = diff  # kept even when grading then fails (records, predictions)
                info["state_key"] = self._safe_state_key()
                t_grade = time.monotonic()
                if self.grade_cache is not None:
                    graded, info["grade_cached"] = self.grade_cache.get_or_grade(
                        grader.cache_key(self.task, diff), lambda: grader.grade(self.task, diff))
                else:
                    graded = grader.grade(self.task, diff)
                self.timing["grade_s"] = time.monotonic() - t_grade
                grade_result = graded.result
                info["tests"] = dict(graded.outcomes)
                info["grade_status"] = dict(graded.result.status)
                broken = infra_grade_failure(graded.result.status)
                if broken:  # the task or the grading sandbox is broken: no reward to learn from
                    raise SandboxError(f"grading {self.task.instance_id}: {broken}: the task is broken, not the "
                                       "submission (the episode is masked)")
            except SandboxError as exc:
                grade_result = None
                info["stop_reason"] = "sandbox_error"
                info["sandbox_error"] = str(exc)
                train_mask = False
        if grade_result is None:
            components = dict.fromkeys(reward_components_names(), 0.0)
            info.setdefault("tests", {})
        else:
            components = reward_components(grade_result, self.turn, self.max_turns, self.parse_errors)
        components.update(self.extra_rewards)
        info["rewards"] = components
        info["train_mask"] = train_mask
        info.setdefault("state_key", "unknown")
        self._release()
        return weighted_reward(components, self.reward_weights)

    # ---- forking ---------------------------------------------------------------------------

    def snapshot(self) -> EnvSnapshot:
        """The episode so far, sandbox included, as plain data (picklable)."""
        if self._done or self.sandbox is None:
            raise RuntimeError("snapshot() needs a running episode")
        return EnvSnapshot(self.task.instance_id, copy.deepcopy(self.messages), self.turn, self.parse_errors,
                           time.monotonic() - self.started, self.last_tool_output,
                           self.sandbox.snapshot([self.task.workdir]),
                           extra={"history": copy.deepcopy(self.history), "hack_events": copy.deepcopy(self.hack_events),
                                  "extra_rewards": dict(self.extra_rewards), "timing": dict(self.timing),
                                  "last_state_key": self.last_state_key})

    def restore(self, snap: EnvSnapshot) -> None:
        """Continue the snapshotted episode in this env (any instance with the same task)."""
        if snap.task_id not in self._by_id:
            raise ValueError(f"snapshot of unknown task {snap.task_id!r}")
        self._release()
        self.task = self._by_id[snap.task_id]
        self.sandbox = self.pool_for(self.task).acquire(workspace_bytes(self.task))
        self.sandbox.restore(snap.sandbox)
        self.messages = copy.deepcopy(snap.messages)
        self.turn, self.parse_errors = snap.turn, snap.parse_errors
        self.last_tool_output = snap.last_tool_output
        self.started = time.monotonic() - snap.elapsed_s
        self.history = copy.deepcopy(snap.extra.get("history", snap.messages))
        self.hack_events = copy.deepcopy(snap.extra.get("hack_events", []))
        self.extra_rewards = dict(snap.extra.get("extra_rewards", {"hack_penalty": 0.0}))
        self.timing = dict(snap.extra.get("timing", {"reset_s": 0.0, "exec_s": 0.0, "grade_s": 0.0,
                                                     "state_key_s": 0.0}))
        self.last_state_key = snap.extra.get("last_state_key", "unknown")
        self.pending_events = []
        self._done = False
        for hook in self.reset_hooks:
            hook(self, "restore")

    # ---- the rest ---------------------------------------------------------------------------

    def render(self):
        if self.render_mode == "ansi":
            return "\n\n".join(f"[{m['role']}] {m['content']}" for m in self.messages)
        return None

    def close(self):
        self._release()
        self._done = True
        super().close()


def infra_grade_failure(status: Mapping[str, str]) -> str | None:
    """What went wrong in a grading stage that `INFRA_GRADE_FAILURES` lists, or None.

    >>> infra_grade_failure({"agent_patch": "applied", "test_patch": "failed"})
    'the hidden tests (test_patch) do not apply to its base_commit (failed)'
    """
    for stage, bad in INFRA_GRADE_FAILURES.items():
        value = str(status.get(stage, ""))
        if value.startswith(bad):  # a bare status word, or the word and a detail ("failed: ...")
            what = "the hidden tests (test_patch) do not apply to its base_commit" if stage == "test_patch" else \
                f"grading stage {stage}"
            return f"{what} ({value})"
    return None


def reward_components_names() -> tuple[str, ...]:
    return ("correctness", "tests_passed", "format", "length", "hack_penalty")
