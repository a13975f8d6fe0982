"""SkyRL-Gym over codegym: importing this module registers ``"codegym"`` in `skyrl_gym`.

    import codegym.integrations.skyrl  # noqa: F401
    env = skyrl_gym.make("codegym", env_config={"env_id": "codegym/Toy-v0", "backend": "docker"},
                         extras={"task_id": "toy-add-typo"})  # or extras["extra_info"]["task_id"]

`init(prompt)` resets the codegym env on that task and returns codegym's own first messages
(the system prompt with the tools, then the task) in place of the dataset's prompt. `step(text)`
returns the messages the step added after the assistant's (the tool result or the error), with
`done` = terminated or truncated and the episode's reward at the end; `metadata` carries
``turn``, ``stop_reason``, ``train_mask``, ``rewards``, ``tests``, ``hack_events`` and ``state_key``.
SkyRL keeps the conversation itself, so codegym's compaction is off unless `env_config` turns it on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import skyrl_gym
from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput

import codegym  # noqa: F401  (registers the env ids)

ENV_NAME = "codegym"

_METADATA_KEYS = ("turn", "stop_reason", "train_mask", "rewards", "tests", "hack_events", "state_key",
                  "parse_error", "tool_call")


def _plain(config: Any) -> dict[str, Any]:
    """`env_config` as a dict: SkyRL passes an OmegaConf `DictConfig`, users a dict or None."""
    if config is None:
        return {}
    try:
        from omegaconf import DictConfig, OmegaConf
    except ImportError:  # pragma: no cover - omegaconf comes with skyrl-gym
        DictConfig = ()  # noqa: N806
    if isinstance(config, DictConfig):
        return OmegaConf.to_container(config, resolve=True)
    return dict(config)


def task_id_from(extras: Mapping[str, Any]) -> str:
    """The task id of a SkyRL dataset row: ``extras["task_id"]`` or ``extras["extra_info"]["task_id"]``."""
    task_id = extras.get("task_id") or (extras.get("extra_info") or {}).get("task_id")
    if not task_id:
        raise ValueError("the codegym SkyRL env needs a task id: put task_id in the dataset row (extras) or in "
                         f"its extra_info; got extras keys {sorted(extras)}")
    return str(task_id)


class CodegymTextEnv(BaseTextEnv):
    """One codegym episode as a SkyRL `BaseTextEnv` (see the module docstring)."""

    def __init__(self, env_config: Any = None, extras: Mapping[str, Any] | None = None):
        super().__init__()
        gym_kwargs = _plain(env_config)
        env_id = gym_kwargs.pop("env_id", "codegym/Toy-v0")
        gym_kwargs.setdefault("compaction", False)
        self.task_id = task_id_from(extras or {})
        self.env = gym.make(env_id, **gym_kwargs)
        self.max_turns = self.env.unwrapped.max_turns
        self.result: dict[str, Any] | None = None

    def init(self, prompt: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        obs, info = self.env.reset(options={"task_id": self.task_id})
        self.turns = 0
        return obs, {"task_id": info["task_id"], "tools": info["tools"], "state_key": info.get("state_key")}

    def step(self, action: str) -> BaseTextEnvStepOutput:
        from codegym.integrations import episode_result

        _, reward, terminated, truncated, info = self.env.step(action)
        self.turns += 1
        done = bool(terminated or truncated)
        metadata = {k: info[k] for k in _METADATA_KEYS if k in info}
        if done:
            self.result = episode_result(reward, info, self.env.unwrapped.hack_events)
        return BaseTextEnvStepOutput(observations=info["new_messages"][1:], reward=float(reward), done=done,
                                     metadata=metadata, postprocessed_action=None)

    def get_metrics(self) -> dict[str, Any]:
        if self.result is None:
            return {"turns": self.turns}
        return {"turns": self.turns, "reward": self.result["reward"], **self.result["rewards"],
                "hack_events": len(self.result["hack_events"]),
                "submitted": float(self.result["stop_reason"] == "submitted")}

    def close(self) -> None:
        self.env.close()


if ENV_NAME not in skyrl_gym.registry:
    skyrl_gym.register(id=ENV_NAME, entry_point=CodegymTextEnv)
