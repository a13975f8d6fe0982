"""mini-swe-agent's `Environment` over a codegym env: the harness's bash commands run through
`env.step` (anti-hack guards on, every command a turn), its submit sentinel is codegym's
`submit`, and the graded outcome lands in `env.result`.

    from minisweagent.agents.default import DefaultAgent
    env = CodegymEnvironment("codegym/Toy-v0", "toy-add-typo")
    DefaultAgent(model, env, **agent_config).run(env.task); print(env.result["reward"])

A command whose first line is ``echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`` (mini-swe-agent's
sentinel) is not run: it submits. The agent then stops with exit status ``Submitted`` and the
episode's diff as its submission; an episode that codegym ends itself (``max_turns``,
``wall_clock``, a sandbox failure) stops it with that reason as the exit status.
"""

from __future__ import annotations

import platform
import re
from dataclasses import asdict, dataclass, field
from typing import Any

import gymnasium as gym
from minisweagent.exceptions import LimitsExceeded, Submitted

import codegym  # noqa: F401  (registers the env ids)
from codegym.integrations import episode_result
from codegym.toolcall import ToolCall

#: mini-swe-agent's submit command (its configs tell the model to run exactly this).
SUBMIT_SENTINEL = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
_SUBMIT = re.compile(r"\s*echo\s+['\"]?" + SUBMIT_SENTINEL + r"\b")


@dataclass
class CodegymEnvironmentConfig:
    env_id: str
    task_id: str
    gym_kwargs: dict[str, Any] = field(default_factory=dict)

    def model_dump(self, mode: str = "python") -> dict[str, Any]:  # the pydantic spelling the harness uses
        data = asdict(self)
        if mode == "json":
            data["gym_kwargs"] = {k: v if isinstance(v, (str, int, float, bool, type(None))) else repr(v)
                                  for k, v in self.gym_kwargs.items()}
        return data


class CodegymEnvironment:
    """One codegym episode (`env_id`, `task_id`) as a mini-swe-agent environment.

    Attributes:
        env: the Gymnasium env (with its default wrappers: guards, compaction).
        task: the task prompt the env gives the agent (pass it to `DefaultAgent.run`).
        hack_events: the guards' events so far.
        result: None until the episode ends, then `codegym.integrations.episode_result`'s dict.
    """

    def __init__(self, env_id: str, task_id: str, **gym_kwargs: Any):
        self.config = CodegymEnvironmentConfig(env_id, task_id, dict(gym_kwargs))
        self.env = gym.make(env_id, **gym_kwargs)
        obs, self.reset_info = self.env.reset(options={"task_id": task_id})
        self.task: str = obs[-1]["content"]
        self.hack_events: list[dict[str, Any]] = list(self.reset_info.get("hack_events", []))
        self.result: dict[str, Any] | None = None

    def execute(self, action: dict, cwd: str = "", *, timeout: int | None = None) -> dict[str, Any]:
        """Run `action["command"]` as one codegym turn; mini-swe-agent's output dict back."""
        if self.result is not None:
            return {"output": "", "returncode": -1,
                    "exception_info": f"the episode is over ({self.result['stop_reason']}); nothing was run"}
        command = action.get("command", "")
        if _SUBMIT.match(command):
            call = ToolCall("submit", {})
        else:
            if cwd:
                command = f"cd {cwd} && {command}"
            call = ToolCall("bash", {"command": command, **({"timeout": int(timeout)} if timeout else {})})
        _, reward, terminated, truncated, info = self.env.step(call)
        self.hack_events.extend(info.get("hack_events", []))
        message = info["new_messages"][-1]["content"] if len(info["new_messages"]) > 1 else ""
        output = {"output": message, "returncode": info.get("exit_code"),
                  "exception_info": f"Error: {info['parse_error']}" if info.get("parse_error") else ""}
        if output["returncode"] is None:
            output["returncode"] = 0 if call.name == "submit" else -1
        if terminated or truncated:
            self.result = episode_result(reward, info, self.hack_events)
            stop = self.result["stop_reason"]
            exit_message = {"role": "exit", "content": self.result["diff"] if stop == "submitted" else stop,
                            "extra": {"exit_status": "Submitted" if stop == "submitted" else stop,
                                      "submission": self.result["diff"], "codegym": self.result}}
            raise (Submitted if stop == "submitted" else LimitsExceeded)(exit_message)
        return output

    def get_template_vars(self, **kwargs: Any) -> dict[str, Any]:
        unwrapped = self.env.unwrapped
        return {**self.config.model_dump(), **platform.uname()._asdict(), "cwd": unwrapped.task.workdir,
                "task_prompt": self.task, **kwargs}

    def serialize(self) -> dict[str, Any]:
        return {"info": {"config": {"environment": self.config.model_dump(mode="json"),
                                    "environment_type": f"{type(self).__module__}.{type(self).__name__}"},
                         "codegym_result": self.result}}

    def close(self) -> None:
        self.env.close()

    def __enter__(self) -> CodegymEnvironment:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
