"""One spec per algorithm: everything config validation, the data path and the trainer know about it.

    spec = get_algorithm("gigpo")
    spec.estimator, spec.rollout, spec.critic        # 'gigpo', 'groups', False
    batch.advantage_inputs("gigpo")                  # the estimator's batch arguments, read off spec.inputs

Adding an algorithm is one call: an estimator (any function returning an `AdvantageResult`) and
its spec. Config validation (`TrainConfig.validate`), `SequenceBatch.advantage_inputs` and
`Trainer` read the spec and never test an algorithm's name:

    register_algorithm(AlgorithmSpec("rloo", estimator="rloo", inputs=GROUP_INPUTS, min_group_size=2),
                       estimator_fn=rloo_advantages)

What a spec says:

- ``estimator``: the name in `codegym.trainer.advantages` (``gae`` for ``ppo``);
- ``inputs``: estimator keyword -> `SequenceBatch` attribute (per-row or per-step arrays);
- ``rollout``: ``groups`` (``rollout.group_size`` independent rollouts per task) or ``trees``
  (Tree-GRPO's `collect_trees`; only then do ``rollout.trees/rounds/expand`` apply);
- ``critic``: the estimator takes the critic's ``values`` (``model.critic: auto`` then means
  ``shared``); only then do ``kl_in_reward`` (a KL penalty in ``token_level_rewards``),
  ``value_*`` and ``critic_warmup`` apply;
- ``reward_components``: advantages over the env's named components (``algorithm.
  reward_components``, weighted by ``component_weights`` as ``reward_weights``) instead of
  the scalar reward;
- ``min_group_size``: the smallest ``rollout.group_size`` its statistics make sense for;
- ``batch_options``: `to_sequences` options derived from ``advantage_kwargs`` (Tree-GRPO's
  ``shared_prefix: every_leaf`` keeps a branch's copy of its parent's prefix in the loss);
- ``checks``: more config checks, each returning error strings that name the field.

This module imports neither torch nor transformers (a config loads without them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .config import TrainConfig

ConfigCheck = Callable[["TrainConfig"], list[str]]

#: estimator arguments that are batch data: never settable through `algorithm.advantage_kwargs`,
#: whether or not an algorithm's spec fills them.
DATA_ARGS = frozenset({
    "response_mask", "group_ids", "scores", "traj_ids", "tree_ids", "branch_points", "token_steps", "state_keys",
    "step_index", "token_level_rewards", "values", "episode_ids", "segment_index", "reward_components",
    "step_rewards", "reward_weights", "action_keys"})

#: the per-row inputs of a group estimator: rows of one episode share its `traj_ids`.
GROUP_INPUTS: Mapping[str, str] = {"response_mask": "completion_mask", "group_ids": "group_ids",
                                   "scores": "scores", "traj_ids": "episode_index"}


@dataclass(frozen=True)
class AlgorithmSpec:
    """What `algorithm.name` means to the rest of the trainer (see the module docstring)."""

    name: str
    estimator: str
    inputs: Mapping[str, str]
    rollout: str = "groups"
    critic: bool = False
    reward_components: bool = False
    min_group_size: int = 1
    batch_options: Callable[[Mapping[str, Any]], dict[str, Any]] | None = None
    checks: Sequence[ConfigCheck] = ()
    help: str = ""

    def __post_init__(self) -> None:
        if self.rollout not in ("groups", "trees"):
            raise ValueError(f"algorithm {self.name!r}: rollout must be groups or trees, not {self.rollout!r}")

    def trainer_inputs(self) -> frozenset[str]:
        """Estimator arguments the trainer fills: the batch's, plus values / reward weights."""
        extra = {"values"} if self.critic else set()
        if self.reward_components:
            extra.add("reward_weights")
        return frozenset(self.inputs) | extra

    def sequence_options(self, advantage_kwargs: Mapping[str, Any]) -> dict[str, Any]:
        """Keyword arguments of `to_sequences` for this algorithm."""
        return dict(self.batch_options(advantage_kwargs)) if self.batch_options else {}


ALGORITHMS: dict[str, AlgorithmSpec] = {}


def register_algorithm(spec: AlgorithmSpec, *, estimator_fn: Callable[..., Any] | None = None,
                       replace: bool = False) -> AlgorithmSpec:
    """Make `spec.name` a valid `algorithm.name`; with `estimator_fn`, also register that function as
    `spec.estimator` in `codegym.trainer.advantages` (which imports torch)."""
    if spec.name in ALGORITHMS and not replace and ALGORITHMS[spec.name] != spec:
        raise ValueError(f"algorithm {spec.name!r} is already registered (pass replace=True to redefine it)")
    if estimator_fn is not None:
        from .advantages import ADVANTAGES

        ADVANTAGES[spec.estimator] = estimator_fn
    ALGORITHMS[spec.name] = spec
    return spec


def unregister_algorithm(name: str) -> None:
    """Forget `name` (its estimator stays in the advantage registry); for tests."""
    ALGORITHMS.pop(name, None)


def get_algorithm(name: str) -> AlgorithmSpec:
    """The spec of algorithm `name`, or of the algorithm whose estimator is `name` (``gae`` -> ppo)."""
    if name in ALGORITHMS:
        return ALGORITHMS[name]
    for spec in ALGORITHMS.values():
        if spec.estimator == name:
            return spec
    raise KeyError(f"unknown algorithm {name!r}; known: {', '.join(ALGORITHMS)}")


def names_with(predicate: Callable[[AlgorithmSpec], bool]) -> list[str]:
    return [n for n, s in ALGORITHMS.items() if predicate(s)]


def join_names(names: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    names = list(names) or ["no algorithm"]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


# ---- the built-in algorithms -----------------------------------------------------------------------


def _check_components(cfg: TrainConfig) -> list[str]:
    a, errors = cfg.algorithm, []
    if not cfg.reward_components:
        errors.append(f"{a.name} needs at least one algorithm.reward_components entry")
    if a.component_weights is not None and len(a.component_weights) != len(cfg.reward_components):
        errors.append(f"algorithm.component_weights has {len(a.component_weights)} entries for "
                      f"{len(cfg.reward_components)} reward_components")
    return errors


def _check_state_keys(cfg: TrainConfig) -> list[str]:
    kwargs = cfg.env.kwargs
    if "state_key" in kwargs and kwargs["state_key"] in ("none", None):
        return ["gigpo anchors steps by the env's state keys: remove env.kwargs.state_key: none"]
    return []


def _tree_batch_options(advantage_kwargs: Mapping[str, Any]) -> dict[str, Any]:
    # a branch trains only its own steps unless the estimator follows the reference (every_leaf)
    return {"mask_shared_prefix": advantage_kwargs.get("shared_prefix") != "every_leaf"}


for _spec in (
    AlgorithmSpec("ppo", "gae", {"response_mask": "completion_mask", "token_level_rewards": "token_level_rewards",
                                 "episode_ids": "episode_index", "segment_index": "segment_index"},
                  critic=True, help="critic + GAE across the segments of each episode"),
    AlgorithmSpec("grpo", "grpo", GROUP_INPUTS, min_group_size=2, help="group-normalized episode rewards"),
    AlgorithmSpec("gigpo", "gigpo", {"response_mask": "completion_mask", "token_steps": "token_steps",
                                     "group_ids": "step_group_ids", "traj_ids": "step_episode",
                                     "state_keys": "step_state_keys", "action_keys": "step_action_keys",
                                     "step_index": "step_index", "scores": "step_scores"},
                  min_group_size=2, checks=(_check_state_keys,), help="episode + step (anchor state) groups"),
    AlgorithmSpec("tree_grpo", "tree_grpo", {**GROUP_INPUTS, "tree_ids": "tree_ids",
                                             "branch_points": "branch_points"},
                  rollout="trees", batch_options=_tree_batch_options, help="intra- and inter-tree groups"),
    AlgorithmSpec("gdpo", "gdpo", {"response_mask": "completion_mask", "group_ids": "group_ids",
                                   "traj_ids": "episode_index", "reward_components": "reward_components"},
                  reward_components=True, min_group_size=2, checks=(_check_components,),
                  help="per-component group normalization"),
    AlgorithmSpec("gd2po", "gd2po", {"response_mask": "completion_mask", "group_ids": "group_ids",
                                     "traj_ids": "episode_index", "reward_components": "reward_components"},
                  reward_components=True, min_group_size=2, checks=(_check_components,),
                  help="GDPO with conflict-aware component weighting"),
):
    register_algorithm(_spec)
del _spec
