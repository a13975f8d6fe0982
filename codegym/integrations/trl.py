"""TRL's `GRPOTrainer(environment_factory=...)` over a codegym env: the tools are codegym's own.

    from trl import GRPOConfig, GRPOTrainer
    rows = Dataset.from_list(task_rows(["toy-add-typo"]))   # {"prompt": [...], "task_id": ...}
    GRPOTrainer(model, args=GRPOConfig(...), train_dataset=rows,
                environment_factory=environment_factory("codegym/Toy-v0", backend="docker")).train()

`environment_factory(env_id, **gym_kwargs)` returns a class; TRL makes one instance per rollout.
Its public methods are generated from codegym's tool specs (`codegym.envs.tools.TOOL_SPECS`:
every tool, optional arguments included, with their descriptions as Google-style docstrings), and
each call is one `env.step` (anti-hack guards on). `reset(**row)` starts the row's ``task_id``
(or ``extra_info["task_id"]``; a random task without one) and returns the task prompt, which TRL
appends to the row's last user message. `get_reward()` is the env's reward, submitting first when
the rollout never did. `reward_functions()` gives one reward function per named component
(``codegym_correctness``, ...); pass them with weight 0 in `GRPOConfig.reward_weights` to log them.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

import gymnasium as gym

import codegym  # noqa: F401  (registers the env ids)
from codegym.antihack.types import ToolCall
from codegym.envs.env import reward_components_names
from codegym.envs.tools import DEFAULT_TOOLS, TOOL_SPECS
from codegym.integrations import episode_result

_PY_TYPES: dict[str, Any] = {"string": str, "integer": int, "object": dict, "boolean": bool, "number": float}


def _annotation(schema: dict[str, Any]) -> Any:
    if schema["type"] == "array":
        return list[_PY_TYPES[schema.get("items", {}).get("type", "string")]]
    return _PY_TYPES[schema["type"]]


def tool_method(name: str):
    """A method `name(self, ...) -> str` whose signature, type hints and docstring state the codegym
    tool's schema (what `transformers.utils.get_json_schema` reads); calling it steps the env."""
    spec = TOOL_SPECS[name]
    props, required = spec["parameters"]["properties"], spec["parameters"]["required"]
    order = [a for a in props if a in required] + [a for a in props if a not in required]
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    params += [inspect.Parameter(a, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=_annotation(props[a]),
                                 default=inspect.Parameter.empty if a in required else None) for a in order]

    def method(self, *args: Any, **kwargs: Any) -> str:
        bound = method.__signature__.bind(self, *args, **kwargs)
        arguments = {k: v for k, v in bound.arguments.items() if k != "self" and v is not None}
        return self._call(ToolCall(name, arguments))

    method.__name__ = method.__qualname__ = name
    method.__signature__ = inspect.Signature(params, return_annotation=str)
    method.__annotations__ = {a: _annotation(props[a]) for a in order} | {"return": str}
    arg_lines = "".join(f"    {a}: {props[a]['description']}\n" for a in order)
    method.__doc__ = (f"{spec['description']}\n\n" + (f"Args:\n{arg_lines}\n" if order else "")
                      + "Returns:\n    The tool's output.\n")
    return method


class CodegymToolEnv:
    """The base of `environment_factory`'s classes: TRL calls `reset` and `get_reward`; every
    other public method is a tool, so helpers here are private."""

    env_id = "codegym/Toy-v0"
    gym_kwargs: dict[str, Any] = {}

    def __init__(self) -> None:
        self._env = gym.make(self.env_id, **self.gym_kwargs)
        self._result: dict[str, Any] | None = None
        self._hack_events: list[dict[str, Any]] = []

    def reset(self, **row: Any) -> str:
        task_id = row.get("task_id") or (row.get("extra_info") or {}).get("task_id")
        obs, info = self._env.reset(options={"task_id": task_id} if task_id else None)
        self._result, self._hack_events = None, list(info.get("hack_events", []))
        return obs[-1]["content"]

    def get_reward(self) -> float:
        return self._finish()["reward"]

    def _call(self, call: ToolCall) -> str:
        if self._result is not None:
            return f"Error: the episode is over ({self._result['stop_reason']}); no more tool calls run."
        _, reward, terminated, truncated, info = self._env.step(call)
        self._hack_events.extend(info.get("hack_events", []))
        if terminated or truncated:
            self._result = episode_result(reward, info, self._hack_events)
        return info["new_messages"][-1]["content"]

    def _finish(self) -> dict[str, Any]:
        """The episode's outcome (`codegym.integrations.episode_result`), submitting first if needed."""
        if self._result is None:
            self._call(ToolCall("submit", {}))
        return self._result


def environment_factory(env_id: str = "codegym/Toy-v0", *, tools: Sequence[str] = DEFAULT_TOOLS,
                        **gym_kwargs: Any) -> type[CodegymToolEnv]:
    """A class for `GRPOTrainer(environment_factory=...)`: `gym.make(env_id, **gym_kwargs)` per
    instance, with one method per codegym tool in `tools`."""
    unknown = [t for t in tools if t not in TOOL_SPECS]
    if unknown:
        raise ValueError(f"unknown tools {unknown}; known: {', '.join(TOOL_SPECS)}")
    namespace: dict[str, Any] = {name: tool_method(name) for name in tools}
    namespace.update(env_id=env_id, gym_kwargs={"tools": tuple(tools), **gym_kwargs}, __module__=__name__,
                     __doc__=f"{env_id} for TRL's GRPOTrainer; tools: {', '.join(tools)}.")
    return type("CodegymEnv", (CodegymToolEnv,), namespace)


def reward_functions(names: Sequence[str] | None = None) -> list:
    """One TRL reward function per named reward component (``codegym_<name>``), read from each
    rollout's environment (submitting first if the rollout never did)."""
    funcs = []
    for name in names or reward_components_names():
        def component(environments: Sequence[CodegymToolEnv], _name: str = name, **kwargs: Any) -> list[float]:
            return [float(e._finish()["rewards"].get(_name, 0.0)) for e in environments]

        component.__name__ = f"codegym_{name}"
        funcs.append(component)
    return funcs


def task_rows(task_ids: Sequence[str], prompt: str = "") -> list[dict[str, Any]]:
    """Dataset rows for `environment_factory`: an (empty) user prompt that `reset` fills with the task."""
    return [{"prompt": [{"role": "user", "content": prompt}], "task_id": t} for t in task_ids]
