"""Episodes as the policy produced them: Episode -> Segment -> Step, and the tensors derived from them.

    episodes = collect(make_env, agent, tasks, group_size=8)        # codegym.trainer.rollout
    save_episodes(episodes, "runs/x/episodes.jsonl"); episodes = load_episodes(...)
    batch = to_sequences(episodes, pad_id=tokenizer.pad_token_id)
    adv = compute_advantages("grpo", **batch.advantage_inputs("grpo"))     # inputs named by the algorithm's spec

A *segment* is one token sequence the model actually saw: its first prompt's ids, then per
step the completion ids the engine sampled and the observation ids appended after them. A new
segment starts when the context is rewritten (compaction, a template that rewrites history),
so every token of a segment was in the model's context when the following tokens were sampled.
A *step* is one model call: completion ids, their logprobs and the policy version that sampled
them, the state key the action was taken in (GiGPO's anchor), the hack events it caused.

`to_sequences` builds one padded row per segment (right padding):

- ``input_ids``, ``attention_mask`` [B, T];
- ``completion_mask`` [B, T]: 1 exactly on engine-produced tokens (prompt, observations and
  template glue such as an ``<|im_end|>`` the model did not generate are 0);
- ``old_logprobs`` [B, T]: the engine's logprob *of the token at that position* (0 elsewhere);
  a trainer scoring ``logits[:, :-1]`` against ``input_ids[:, 1:]`` compares with
  ``old_logprobs[:, 1:]``;
- ``token_steps`` [B, T]: the global index of the step each completion token belongs to (-1
  elsewhere), ``step_spans`` [(start, end)] per row; per-step arrays ``step_*``, among them
  ``step_state_keys`` (None where the env had no key: GiGPO makes such a step its own group) and
  ``step_action_keys`` (a digest of the step's exact sampled token ids, for GiGPO's same-state
  same-action averaging);
- ``episode_index``, ``segment_index`` [B] (an episode's rows share its ``episode_index``: the
  group estimators count episodes, not rows, and GAE chains the segments), ``group_ids``,
  ``tree_ids``, ``scores``, ``reward_components`` [B, K], ``token_level_rewards`` (the episode
  reward on its last completion token), ``branch_points`` (Tree-GRPO: the first token of the
  episode's own steps, after the prefix it shares with its parent).

Tree-GRPO branches: a leaf rolled out from an intermediate node carries its parent's prefix (its
first ``branch_step`` steps). By default (``mask_shared_prefix=True``, the design notes' rule)
those copied completion tokens are 0 in ``completion_mask``, so a branch row trains only on its
own steps and the prefix is trained once, by the row that sampled it; ``shared_prefix_mask`` marks
them either way. ``mask_shared_prefix=False`` keeps them (the reference Tree-GRPO trains every
leaf on its whole trajectory).
"""

from __future__ import annotations

import hashlib
import json
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Step:
    """One model call and what the env made of it."""

    completion_ids: list[int]
    logprobs: list[float]
    policy_version: int = 0
    observation_ids: list[int] = field(default_factory=list)
    state_key: str | None = None
    hack_events: list[dict[str, Any]] = field(default_factory=list)
    finish_reason: str = ""
    parse_error: str | None = None
    tool_name: str | None = None

    def __post_init__(self) -> None:
        if len(self.completion_ids) != len(self.logprobs):
            raise ValueError(f"a step has {len(self.completion_ids)} completion ids but {len(self.logprobs)} logprobs")


@dataclass
class Segment:
    """One context window: `prompt_ids`, then each step's completion and observation ids."""

    prompt_ids: list[int]
    steps: list[Step] = field(default_factory=list)
    start_reason: str = "start"  # start | compaction | rewrite
    env_segment: int | None = None

    def token_ids(self) -> list[int]:
        ids = list(self.prompt_ids)
        for s in self.steps:
            ids += s.completion_ids + s.observation_ids
        return ids

    def __len__(self) -> int:
        return len(self.prompt_ids) + sum(len(s.completion_ids) + len(s.observation_ids) for s in self.steps)


@dataclass
class Episode:
    """One rollout of one task. `train_mask=False` (with `mask_reason`) keeps it out of training."""

    task_id: str
    group_id: str
    segments: list[Segment] = field(default_factory=list)
    reward: float = 0.0
    reward_components: dict[str, float] = field(default_factory=dict)
    stop_reason: str = ""
    train_mask: bool = True
    mask_reason: str | None = None
    episode_id: str = ""
    tree_id: str | None = None
    branch_id: int = 0
    parent_id: str | None = None
    branch_step: int = 0  # leading steps shared with the parent: its own steps start here
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def steps(self) -> list[Step]:
        return [s for seg in self.segments for s in seg.steps]

    @property
    def num_steps(self) -> int:
        return sum(len(seg.steps) for seg in self.segments)

    @property
    def completion_tokens(self) -> int:
        return sum(len(s.completion_ids) for seg in self.segments for s in seg.steps)

    def mask(self, reason: str) -> None:
        self.train_mask, self.mask_reason = False, reason

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Episode:
        d = dict(d)
        d["segments"] = [Segment(**{**s, "steps": [Step(**st) for st in s["steps"]]}) for s in d.get("segments", [])]
        return cls(**d)


def episode_from_turns(turns: Sequence[Any], **fields: Any) -> Episode:
    """An `Episode` from `LLMAgent.turns` (the agent's per-call records) plus episode fields."""
    segments: list[Segment] = []
    for t in turns:
        if t.start_reason is not None or not segments:
            segments.append(Segment(list(t.prompt_ids), [], t.start_reason or "start", t.env_segment))
        elif segments[-1].steps:
            segments[-1].steps[-1].observation_ids = list(t.prompt_ids)
        segments[-1].steps.append(Step(
            list(t.completion_ids), list(t.logprobs), t.policy_version, [], t.state_key, list(t.hack_events),
            t.finish_reason, t.parse_error, (t.tool_call or {}).get("name")))
    return Episode(segments=segments, **fields)


# ---- JSONL ---------------------------------------------------------------------------------------


def save_episodes(episodes: Iterable[Episode], path: str | Path, append: bool = False) -> Path:
    """One JSON object per line (`Episode.to_dict`)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a" if append else "w") as f:
        for ep in episodes:
            f.write(json.dumps(ep.to_dict()) + "\n")
    return path


def load_episodes(path: str | Path) -> list[Episode]:
    with Path(path).open() as f:
        return [Episode.from_dict(json.loads(line)) for line in f if line.strip()]


# ---- tensors -------------------------------------------------------------------------------------


@dataclass
class SequenceBatch:
    """Padded per-segment tensors plus the ids advantages need. See the module docstring."""

    input_ids: Any
    attention_mask: Any
    completion_mask: Any
    shared_prefix_mask: Any  # [B, T] 1 on completion tokens copied from a tree branch's parent
    old_logprobs: Any
    token_steps: Any
    token_level_rewards: Any
    episode_index: Any
    segment_index: Any
    scores: Any
    reward_components: Any
    reward_names: list[str]
    branch_points: Any
    group_ids: list[str]
    tree_ids: list[str]
    step_spans: list[list[tuple[int, int]]]
    policy_versions: Any  # [B, T] version per completion token, -1 elsewhere
    step_episode: Any  # [S] row of `episodes` each step belongs to
    step_index: Any  # [S] position of the step in its episode
    step_group_ids: list[str]
    step_state_keys: list[str | None]
    step_action_keys: list[str]
    step_scores: Any
    step_rewards: Any
    episodes: list[Episode]

    @property
    def num_rows(self) -> int:
        return int(self.input_ids.shape[0])

    def advantage_inputs(self, algorithm: str) -> dict[str, Any]:
        """Keyword arguments for `codegym.trainer.advantages.compute_advantages(estimator, ...)`, read
        off the algorithm's spec (`codegym.trainer.algorithms`; an algorithm or estimator name; add the
        critic's ``values`` for GAE). Every group estimator gets ``traj_ids``: the rows (segments) of
        one episode share it, so statistics count each episode once."""
        from .algorithms import get_algorithm

        return {arg: getattr(self, attr) for arg, attr in get_algorithm(algorithm).inputs.items()}


def action_key(completion_ids: Sequence[int]) -> str:
    """A digest of a step's exact sampled token ids: equal iff the actions are token-identical."""
    return hashlib.blake2b(array("q", completion_ids).tobytes(), digest_size=12).hexdigest()


#: the env's state key when it could not compute one (codegym.envs): not a state
UNKNOWN_STATE = "unknown"


def to_sequences(episodes: Sequence[Episode], pad_id: int, *, include_masked: bool = False,
                 reward_names: Sequence[str] | None = None, mask_shared_prefix: bool = True) -> SequenceBatch:
    """One right-padded row per segment of every episode (masked episodes left out by default).

    ``mask_shared_prefix``: leave a tree branch's copy of its parent's steps out of
    ``completion_mask`` (see the module docstring)."""
    import torch

    kept = [(i, ep) for i, ep in enumerate(episodes) if ep.train_mask or include_masked]
    if reward_names is None:
        reward_names = sorted({k for _, ep in kept for k in ep.reward_components})
    rows: list[tuple[int, int, Segment]] = [(i, j, seg) for i, ep in kept for j, seg in enumerate(ep.segments)]
    width = max((len(seg) for _, _, seg in rows), default=0)
    b = len(rows)
    input_ids = torch.full((b, width), int(pad_id), dtype=torch.long)
    attention = torch.zeros((b, width), dtype=torch.long)
    completion = torch.zeros((b, width), dtype=torch.long)
    prefix = torch.zeros((b, width), dtype=torch.long)
    old_lp = torch.zeros((b, width), dtype=torch.float32)
    token_steps = torch.full((b, width), -1, dtype=torch.long)
    versions = torch.full((b, width), -1, dtype=torch.long)
    rewards = torch.zeros((b, width), dtype=torch.float32)
    branch = torch.zeros(b, dtype=torch.long)
    spans: list[list[tuple[int, int]]] = []
    step_episode, step_index, step_groups, step_keys, step_scores, step_rewards = [], [], [], [], [], []
    step_actions: list[str] = []
    last_row_of: dict[int, tuple[int, int]] = {}  # episode -> (row, position of its last completion token)
    seen_steps: dict[int, int] = {}
    for r, (i, _, seg) in enumerate(rows):
        ep = episodes[i]
        ids = seg.token_ids()
        input_ids[r, : len(ids)] = torch.tensor(ids, dtype=torch.long)
        attention[r, : len(ids)] = 1
        pos = len(seg.prompt_ids)
        row_spans = []
        branch[r] = len(ids)  # no own step in this row unless found below
        for step in seg.steps:
            k = seen_steps.get(i, 0)
            seen_steps[i] = k + 1
            s_global = len(step_episode)
            n = len(step.completion_ids)
            shared = k < ep.branch_step  # a copy of the parent's step (tree branches)
            completion[r, pos: pos + n] = 0 if shared and mask_shared_prefix else 1
            prefix[r, pos: pos + n] = int(shared)
            old_lp[r, pos: pos + n] = torch.tensor(step.logprobs, dtype=torch.float32)
            token_steps[r, pos: pos + n] = s_global
            versions[r, pos: pos + n] = step.policy_version
            if k >= ep.branch_step and int(branch[r]) == len(ids):
                branch[r] = pos
            row_spans.append((pos, pos + n))
            if n:
                last_row_of[i] = (r, pos + n - 1)
            step_episode.append(i)
            step_index.append(k)
            step_groups.append(ep.group_id)
            step_keys.append(None if step.state_key in (None, UNKNOWN_STATE) else step.state_key)
            step_actions.append(action_key(step.completion_ids))
            step_scores.append(ep.reward)
            step_rewards.append(0.0)
            pos += n + len(step.observation_ids)
        spans.append(row_spans)
    for i, (r, p) in last_row_of.items():
        rewards[r, p] = float(episodes[i].reward)
    # the episode reward sits on the episode's last step
    last_step: dict[int, int] = {}
    for s, i in enumerate(step_episode):
        last_step[i] = s
    for i, s in last_step.items():
        step_rewards[s] = float(episodes[i].reward)
    return SequenceBatch(
        input_ids=input_ids, attention_mask=attention, completion_mask=completion, shared_prefix_mask=prefix,
        old_logprobs=old_lp,
        token_steps=token_steps, token_level_rewards=rewards,
        episode_index=torch.tensor([i for i, _, _ in rows], dtype=torch.long),
        segment_index=torch.tensor([j for _, j, _ in rows], dtype=torch.long),
        scores=torch.tensor([float(episodes[i].reward) for i, _, _ in rows], dtype=torch.float32),
        reward_components=torch.tensor(
            [[float(episodes[i].reward_components.get(k, 0.0)) for k in reward_names] for i, _, _ in rows],
            dtype=torch.float32).reshape(b, len(reward_names)),
        reward_names=list(reward_names), branch_points=branch,
        group_ids=[episodes[i].group_id for i, _, _ in rows],
        tree_ids=[episodes[i].tree_id or episodes[i].episode_id or f"episode-{i}" for i, _, _ in rows],
        step_spans=spans, policy_versions=versions,
        step_episode=torch.tensor(step_episode, dtype=torch.long),
        step_index=torch.tensor(step_index, dtype=torch.long), step_group_ids=step_groups,
        step_state_keys=step_keys, step_action_keys=step_actions, step_scores=torch.tensor(step_scores, dtype=torch.float32),
        step_rewards=torch.tensor(step_rewards, dtype=torch.float32), episodes=list(episodes))
