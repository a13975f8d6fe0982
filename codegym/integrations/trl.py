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

`rollout_func(env_id, **gym_kwargs)` is the other hook, `GRPOTrainer(rollout_func=...)`: codegym's
own collector (`codegym.trainer.rollout.collect`, an `LLMAgent` over a `TransformersEngine` on the
trainer's live model) plays each prompt's episode, and TRL trains on the exact ids it sampled:

    rows = Dataset.from_list(rollout_rows(["toy-add-typo"]))            # {"prompt": task id, ...}
    GRPOTrainer(model, args=GRPOConfig(...), reward_funcs=[env_reward], train_dataset=rows,
                rollout_func=rollout_func("codegym/Toy-v0", backend="docker")).train()

Per rollout: ``prompt_ids`` = the episode's first prompt, ``completion_ids`` = every turn's sampled
ids followed by the ids the chat template appended after them (tool result, next generation
prompt), ``env_mask`` 1 exactly on the sampled ids, ``logprobs`` the engine's (0 on env ids), plus
``codegym_reward``, ``codegym_rewards``, ``codegym_stop_reason``, ``codegym_train_mask`` for the
reward functions (`env_reward`, and `reward_functions()` in either mode).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym

import codegym  # noqa: F401  (registers the env ids)
from codegym.envs.env import reward_components_names
from codegym.envs.tools import DEFAULT_TOOLS, TOOL_SPECS
from codegym.integrations import episode_result
from codegym.toolcall import ToolCall

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
    rollout's environment (submitting first if the rollout never did), or under `rollout_func`
    from its ``codegym_rewards`` field (None for an episode codegym masked)."""
    funcs = []
    for name in names or reward_components_names():
        def component(environments: Sequence[CodegymToolEnv] | None = None, _name: str = name,
                      **kwargs: Any) -> list[float | None]:
            if environments is None:  # rollout_func: the episode's outcome came as extra fields
                return [float(r.get(_name, 0.0)) if ok else None
                        for r, ok in zip(kwargs["codegym_rewards"], kwargs["codegym_train_mask"], strict=True)]
            return [float(e._finish()["rewards"].get(_name, 0.0)) for e in environments]

        component.__name__ = f"codegym_{name}"
        funcs.append(component)
    return funcs


def task_rows(task_ids: Sequence[str], prompt: str = "") -> list[dict[str, Any]]:
    """Dataset rows for `environment_factory`: an (empty) user prompt that `reset` fills with the task."""
    return [{"prompt": [{"role": "user", "content": prompt}], "task_id": t} for t in task_ids]


# ---- rollout_func: codegym's collector, exact token ids ------------------------------------------


def env_reward(completions: Sequence[Any], codegym_reward: Sequence[float], codegym_train_mask: Sequence[bool],
               **kwargs: Any) -> list[float | None]:
    """The env's reward under `rollout_func`; None (unscored, no advantage) where codegym masked
    the episode (a sandbox error, an engine error, a rewritten context)."""
    return [float(r) if ok else None for r, ok in zip(codegym_reward, codegym_train_mask, strict=True)]


def rollout_rows(task_ids: Sequence[str]) -> list[dict[str, Any]]:
    """Dataset rows for `rollout_func`: the prompt is the task id (TRL hands a rollout function its
    prompts only), the env renders the real one."""
    return [{"prompt": t, "task_id": t} for t in task_ids]


def _task_of(prompt: Any) -> str:
    task = prompt if isinstance(prompt, str) else (prompt[-1].get("content") if prompt else None)
    if not isinstance(task, str) or not task.strip():
        raise ValueError(f"rollout_func reads the task id from each prompt, got {prompt!r}: "
                         "make the rows with rollout_rows(task_ids)")
    return task.strip()


class CodegymRollout:
    """`GRPOTrainer(rollout_func=...)`: `collect` one episode per prompt, as TRL's output dict.

    TRL already repeats every prompt `num_generations` times, so each prompt is one rollout.
    `engine(trainer)` makes the engine (default: a `TransformersEngine` over the trainer's
    unwrapped model, so no weight sync); the agent samples with the trainer's temperature and
    top_p. `episodes` keeps the last batch's `Episode`s (the same ids, per turn).
    """

    def __init__(self, env_id: str = "codegym/Toy-v0", *, engine: Callable[[Any], Any] | None = None,
                 max_new_tokens: int = 256, max_envs: int = 8, parser: str = "any", **gym_kwargs: Any):
        self.env_id, self.engine_factory = env_id, engine
        self.max_new_tokens, self.max_envs, self.parser = max_new_tokens, max_envs, parser
        self.gym_kwargs = {"compaction": False, **gym_kwargs}  # TRL trains one sequence per rollout
        self.episodes: list[Any] = []
        self.calls = 0

    def make_engine(self, trainer: Any) -> Any:
        if self.engine_factory is not None:
            return self.engine_factory(trainer)
        from codegym.agents.engines.transformers_engine import TransformersEngine

        return TransformersEngine(trainer.accelerator.unwrap_model(trainer.model), trainer.processing_class,
                                  policy_version=trainer.state.global_step)

    def __call__(self, prompts: Sequence[Any], trainer: Any) -> dict[str, list]:
        from codegym.agents.llm import LLMAgent
        from codegym.trainer.rollout import collect

        args, tok = trainer.args, trainer.processing_class
        agent = LLMAgent(self.make_engine(trainer), tok, self.parser, max_new_tokens=self.max_new_tokens,
                         temperature=args.temperature, top_p=args.top_p)
        # Distinct sampling and reset seeds per call and per process, reproducible from args.seed.
        seed = args.seed * 1_000_003 + self.calls * 7_919 + trainer.accelerator.process_index * 104_729
        self.calls += 1
        self.episodes = collect(lambda: gym.make(self.env_id, **self.gym_kwargs), agent,
                                [_task_of(p) for p in prompts], max_envs=self.max_envs, seed=seed,
                                batch_id=f"trl-{trainer.state.global_step}")
        out: dict[str, list] = {k: [] for k in ("prompt_ids", "completion_ids", "logprobs", "env_mask")}
        for ep in self.episodes:
            if len(ep.segments) > 1:
                ep.mask(f"{len(ep.segments)} segments ({ep.segments[1].start_reason}): TRL trains one sequence")
            if not ep.segments or not ep.steps:  # nothing sampled (the sandbox failed to start)
                prompt, ids, logprobs, mask = [tok.eos_token_id], [tok.eos_token_id], [0.0], [0]
            else:
                seg = ep.segments[0]
                prompt, ids, logprobs, mask = list(seg.prompt_ids), [], [], []
                for step in seg.steps:
                    ids += step.completion_ids + step.observation_ids
                    logprobs += step.logprobs + [0.0] * len(step.observation_ids)
                    mask += [1] * len(step.completion_ids) + [0] * len(step.observation_ids)
                if not ep.train_mask:
                    mask = [0] * len(mask)
            for key, value in zip(out, (prompt, ids, logprobs, mask), strict=True):
                out[key].append(value)
        out.update(codegym_reward=[ep.reward for ep in self.episodes],
                   codegym_rewards=[dict(ep.reward_components) for ep in self.episodes],
                   codegym_stop_reason=[ep.stop_reason for ep in self.episodes],
                   codegym_train_mask=[ep.train_mask for ep in self.episodes])
        return out


def rollout_func(env_id: str = "codegym/Toy-v0", **kwargs: Any) -> CodegymRollout:
    """A `GRPOTrainer(rollout_func=...)` over `env_id`; see `CodegymRollout` for the options
    (`engine`, `max_new_tokens`, `max_envs`, `parser`), the rest go to `gym.make`."""
    return CodegymRollout(env_id, **kwargs)
