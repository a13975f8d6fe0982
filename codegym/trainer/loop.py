"""The training loop: collect -> rewards -> values -> advantages -> PPO-clip -> value update -> sync -> log.

    trainer = Trainer(load_config("examples/train_gigpo.yaml"))
    trainer.train()                       # or trainer.train_iteration() one at a time
    Trainer(cfg, resume="runs/x").train() # continue from the newest checkpoint in runs/x

One iteration:

1. **collect**: `rollout.tasks_per_iteration` tasks from a seeded sampler; `group_size` rollouts
   each (`collect`), or Tree-GRPO trees (`collect_trees`), sampled by the `rollout.engine`
   (`codegym.trainer.sync`: the trainer's own live peft model by default, or vLLM, an
   OpenAI-compatible server, Ray engine actors). With `rollout.max_staleness` the next
   iterations are collected in the background while this one trains (`codegym.trainer.pipeline`).
2. **rewards**: the env's scalar reward per episode (its weighted components); gdpo/gd2po take
   the named components `algorithm.reward_components` instead. Masked episodes
   (``train_mask=False``: a dead sandbox, a broken task, an engine error) are left out, counted
   by kind (``masked/<stop_reason>``) and their reasons logged (``episodes/mask_reasons`` and a
   warning line); an iteration with every episode masked raises `TrainingError`.
3. **old logprobs**: recomputed by the trainer model before the update (verl style; the
   engine's are compared and logged as ``policy/engine_logprob_diff``), or the engine's.
4. **values** (ppo): the critic adapter + value head; **advantages** by registry name
   (``gae`` across the segments of each episode, ``grpo``, ``gigpo``, ...; the group estimators
   count episodes, not segments, so compaction changes no advantage).
5. **K epochs** of PPO-clip over `mini_batches` mini-batches, each split into micro-batches
   packed by a token budget. The loss is the token-mean over all completion tokens of the
   mini-batch (every micro-batch divides by the mini-batch's token count), so splitting an
   episode into compaction segments leaves it unchanged. The critic's clipped value loss is
   computed in a second forward pass of the same micro-batch (the other adapter).
6. **sync**: the new adapter to the engine (`sync.hand_off`: nothing for the live model, files and
   ``/v1/load_lora_adapter`` for a server, a `LoRARequest` for vLLM, a broadcast for Ray) and the
   adapter-sync probe against the engine (its tolerance follows the weights' dtype). The policy version moves only with a policy update (not in
   ``critic_warmup`` iterations, which train the critic alone).
7. **log** (JSONL + TensorBoard + progress) and **checkpoint**.
"""

from __future__ import annotations

import logging
import math
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import torch

from .config import ConfigError, TrainConfig
from .data import Episode, SequenceBatch, save_episodes, to_sequences

log = logging.getLogger(__name__)


class TrainingError(RuntimeError):
    """A run that cannot go on, e.g. an iteration whose every episode was masked: the message
    gives the reasons; `metrics` holds that iteration's metrics (logged before it is raised)."""

    def __init__(self, message: str, metrics: dict[str, Any] | None = None):
        super().__init__(message)
        self.metrics = metrics or {}


class TaskSampler:
    """Tasks in a seeded shuffled order, epoch after epoch; its cursor is checkpointed."""

    def __init__(self, task_ids: Sequence[str], seed: int = 0):
        if not task_ids:
            raise ValueError("no tasks to sample from")
        self.task_ids, self.seed = list(task_ids), seed
        self.epoch, self.cursor = 0, 0

    def _order(self) -> list[str]:
        ids = list(self.task_ids)
        random.Random(self.seed * 1_000_003 + self.epoch).shuffle(ids)
        return ids

    def next(self, n: int) -> list[str]:
        out: list[str] = []
        while len(out) < n:
            order = self._order()
            take = order[self.cursor: self.cursor + n - len(out)]
            out += take
            self.cursor += len(take)
            if self.cursor >= len(order):
                self.epoch, self.cursor = self.epoch + 1, 0
        return out

    def state_dict(self) -> dict[str, Any]:
        return {"epoch": self.epoch, "cursor": self.cursor, "task_ids": list(self.task_ids), "seed": self.seed}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if list(state["task_ids"]) != self.task_ids:
            raise ValueError("the checkpoint's task list differs from this config's (env.tasks)")
        self.epoch, self.cursor = int(state["epoch"]), int(state["cursor"])


def default_make_env(cfg: TrainConfig) -> Callable[[], Any]:
    import gymnasium as gym

    import codegym  # noqa: F401  (registers the ids)

    kwargs = dict(cfg.env.kwargs)
    kwargs.setdefault("max_turns", cfg.env.max_turns)
    kwargs.setdefault("grade_cache", cfg.env.grade_cache)
    if cfg.env.reward_weights:
        kwargs.setdefault("reward_weights", dict(cfg.env.reward_weights))
    return lambda: gym.make(cfg.env.id, **kwargs)


def _lr_lambda(cfg: TrainConfig) -> Callable[[int], float]:
    o, a = cfg.optim, cfg.algorithm
    total = max(1, cfg.run.iterations * a.epochs * a.mini_batches)

    def f(step: int) -> float:
        if o.warmup_steps and step < o.warmup_steps:
            return (step + 1) / o.warmup_steps
        if o.schedule == "cosine":
            progress = min(1.0, (step - o.warmup_steps) / max(1, total - o.warmup_steps))
            return 0.5 * (1.0 + math.cos(math.pi * progress))
        return 1.0

    return f


def pack_micro_batches(rows: Sequence[int], lengths: Sequence[int], budget: int) -> list[list[int]]:
    """Greedy packing in order: a micro-batch holds rows while ``n_rows * longest <= budget``
    (at least one row each)."""
    out: list[list[int]] = []
    cur: list[int] = []
    longest = 0
    for r in rows:
        m = max(longest, int(lengths[r]))
        if cur and (len(cur) + 1) * m > budget:
            out.append(cur)
            cur, m = [], int(lengths[r])
        cur.append(r)
        longest = m
    if cur:
        out.append(cur)
    return out


def episode_metrics(episodes: Sequence[Episode]) -> dict[str, float]:
    """Rewards, components, pass rate, hack-event rate, masked and segment counts of a batch."""
    n = len(episodes)
    kept = [e for e in episodes if e.train_mask]
    m: dict[str, float] = {"episodes/count": float(n), "episodes/masked": float(n - len(kept))}
    for kind, count in Counter(e.stop_reason or "unknown" for e in episodes if not e.train_mask).items():
        m[f"masked/{kind}"] = float(count)
    if n:
        m["reward/mean"] = sum(e.reward for e in episodes) / n
        names = sorted({k for e in episodes for k in e.reward_components})
        for k in names:
            m[f"reward/{k}"] = sum(e.reward_components.get(k, 0.0) for e in episodes) / n
        m["episodes/pass_rate"] = sum(e.reward_components.get("correctness", 0.0) >= 1.0 for e in episodes) / n
        m["episodes/hack_event_rate"] = sum(any(s.hack_events for s in e.steps) for e in episodes) / n
        m["episodes/turns"] = sum(e.num_steps for e in episodes) / n
        m["batch/segments"] = float(sum(len(e.segments) for e in kept))
        m["batch/multi_segment_episodes"] = float(sum(len(e.segments) > 1 for e in kept))
        m["batch/completion_tokens"] = float(sum(e.completion_tokens for e in kept))
        by_task: dict[str, list[bool]] = {}
        for e in episodes:  # per task: a plateau is often one task the policy never solves
            by_task.setdefault(e.task_id, []).append(e.reward_components.get("correctness", 0.0) >= 1.0)
        for tid, passed in sorted(by_task.items()):
            m[f"pass_rate/{tid}"] = sum(passed) / len(passed)
    return m


def staleness_metrics(token_versions: torch.Tensor, mask: torch.Tensor, version: int) -> dict[str, Any]:
    """How many policy versions behind the trainer's (`version`) each completion token was sampled:
    ``staleness/mean``, ``staleness/max`` and ``staleness/hist`` (JSONL only: staleness -> tokens)."""
    on = mask > 0
    if not bool(on.any()):
        return {}
    lag = (version - token_versions[on]).long()
    values, counts = torch.unique(lag, return_counts=True)
    return {"staleness/mean": float(lag.float().mean()), "staleness/max": float(lag.max()),
            "staleness/hist": {str(int(v)): int(c) for v, c in zip(values, counts, strict=True)}}


def mask_reasons(episodes: Sequence[Episode], width: int = 200) -> dict[str, int]:
    """Each distinct reason of the masked episodes (its first line, at most `width` characters)
    with its count, the most frequent first."""

    def first_line(e: Episode) -> str:
        text = (e.mask_reason or e.stop_reason or "no reason given").strip()
        return text.splitlines()[0][:width] if text else "no reason given"

    return dict(Counter(first_line(e) for e in episodes if not e.train_mask).most_common())


def mask_summary(iteration: int, n_episodes: int, reasons: dict[str, int]) -> str:
    """One line: ``iteration 3: 2/16 episodes masked: 2x start_error: RuntimeError: no sandbox``."""
    n_masked = sum(reasons.values())
    return (f"iteration {iteration}: {n_masked}/{n_episodes} episodes masked: "
            + "; ".join(f"{k}x {reason}" for reason, k in reasons.items()))


def shuffled_rewards(episodes: Sequence[Episode], seed: int) -> list[Episode]:
    """The shuffled-reward control (`algorithm.shuffle_rewards`): copies of `episodes` whose rewards
    (scalar and components together) are a seeded random permutation of the kept episodes' rewards;
    masked episodes are left as they are. The batch's reward distribution is unchanged, its link
    to the episodes is gone.

        shuffled_rewards(episodes, seed=7)   # [e.reward for e in ...] is a permutation of the input's
    """
    from dataclasses import replace

    kept = [i for i, e in enumerate(episodes) if e.train_mask]
    order = list(kept)
    random.Random(seed).shuffle(order)
    out = list(episodes)
    for i, j in zip(kept, order, strict=True):
        out[i] = replace(episodes[i], reward=episodes[j].reward, reward_components=dict(episodes[j].reward_components))
    return out


class Trainer:
    """See the module docstring. `make_env` overrides the env factory (default: gym.make(env.id, ...))."""

    def __init__(self, cfg: TrainConfig, *, make_env: Callable[[], Any] | None = None, resume: str | Path | None = None,
                 task_ids: Sequence[str] | None = None):
        from codegym.agents import LLMAgent

        from .models import build_models
        from .sync import build_engine, separate_engine

        self.cfg = cfg.validate()
        if cfg.run.threads:
            torch.set_num_threads(cfg.run.threads)
        random.seed(cfg.run.seed)
        torch.manual_seed(cfg.run.seed)
        self.models = build_models(cfg.model, critic=cfg.critic_mode)
        self.tokenizer = self.models.tokenizer
        r = cfg.rollout
        self.engine = build_engine(cfg, self.models)
        self._live_engine = r.engine == "transformers" and not separate_engine(cfg)  # serves self.models.model
        self._pipeline = None  # async rollouts (rollout.max_staleness), started on the first iteration
        self.agent = LLMAgent(self.engine, self.tokenizer, max_new_tokens=r.max_new_tokens, temperature=r.temperature,
                              top_p=r.top_p, stop_at_call=r.stop_at_call)
        self.make_env = make_env or default_make_env(cfg)
        self.sampler = TaskSampler(list(task_ids or cfg.env.tasks or self._env_task_ids()), cfg.run.seed)
        self._env_pool = None  # started on the first collect (rollout.backend: local or ray)
        o = cfg.optim
        self.policy_opt = torch.optim.AdamW(self.models.policy_parameters(), lr=o.lr, betas=tuple(o.betas),
                                            weight_decay=o.weight_decay)
        self.policy_sched = torch.optim.lr_scheduler.LambdaLR(self.policy_opt, _lr_lambda(cfg))
        self.critic_opt = self.critic_sched = None
        if self.models.critic != "none":
            self.critic_opt = torch.optim.AdamW(self.models.critic_parameters(), lr=o.critic_lr, betas=tuple(o.betas),
                                                weight_decay=o.weight_decay)
            self.critic_sched = torch.optim.lr_scheduler.LambdaLR(self.critic_opt, _lr_lambda(cfg))
        self.iteration = 0
        self.policy_version = 0
        self.history: list[dict[str, Any]] = []
        self.out_dir = Path(cfg.run.out_dir)
        if resume is not None:
            from .checkpoint import load_checkpoint

            load_checkpoint(self, resume)
        self._sync()

    def env_pool(self):
        """The env provider of `rollout.backend` (local threads or Ray workers), started once."""
        if self._env_pool is None:
            from .ray_pool import make_env_pool

            r = self.cfg.rollout
            self._env_pool = make_env_pool(r.backend, self.make_env, max_envs=r.max_envs, **dict(r.ray))
        return self._env_pool

    def close(self) -> None:
        """Stop the env workers (Ray) and release what the trainer holds."""
        if self._pipeline is not None:
            self._pipeline.close()
            self._pipeline = None
        if hasattr(self.engine, "close"):  # Ray engine actors
            self.engine.close()
        if self._env_pool is not None:
            self._env_pool.close()
            self._env_pool = None

    def _env_task_ids(self) -> list[str]:
        env = self.make_env()
        try:
            return [t.instance_id for t in env.unwrapped.tasks]
        finally:
            env.close()

    # ---- the loop ----------------------------------------------------------------------------------

    def train(self, iterations: int | None = None) -> list[dict[str, Any]]:
        """Run until `run.iterations` (or `iterations` more); checkpoint every `save_every` and at the end."""
        from .checkpoint import save_checkpoint
        from .metrics import MetricsLogger

        end = self.cfg.run.iterations if iterations is None else self.iteration + iterations
        self._run_end = end  # async rollouts collect no further
        if self._pipeline is not None:
            self._pipeline.extend(end)
        logger = MetricsLogger(self.out_dir, tensorboard=self.cfg.run.tensorboard, progress=self.cfg.run.progress,
                               total=end, start=self.iteration, append=self.iteration > 0)
        rows = []
        try:
            while self.iteration < end:
                try:
                    metrics = self.train_iteration()
                except TrainingError as exc:
                    if exc.metrics:  # the failed iteration's line, with its mask reasons
                        logger.log(self.iteration, exc.metrics)
                    raise
                logger.log(self.iteration - 1, metrics)
                rows.append(metrics)
                every = self.cfg.run.save_every
                if (every and self.iteration % every == 0) or self.iteration == end:
                    save_checkpoint(self)
        finally:
            logger.close()
        return rows

    def train_iteration(self) -> dict[str, Any]:
        """One iteration (collect, update, sync); returns its metrics."""
        cfg, it = self.cfg, self.iteration
        t0 = time.monotonic()
        self.models.use_policy()
        self.models.train(False)
        if cfg.rollout.max_staleness is not None and self._pipeline is None:
            from .pipeline import RolloutPipeline

            self._pipeline = RolloutPipeline(self._collect, self.sampler, max_staleness=cfg.rollout.max_staleness,
                                             tasks_per_iteration=cfg.rollout.tasks_per_iteration, start=it,
                                             limit=max(getattr(self, "_run_end", cfg.run.iterations), it + 1))
        tasks = self.sampler.next(cfg.rollout.tasks_per_iteration)
        stats: dict[str, float] = {}
        spec = cfg.algorithm_spec  # what the algorithm needs: rollout shape, inputs, critic, components
        if self._pipeline is not None:  # collected in the background, maybe while the last iteration trained
            episodes, stats, rollout_s = self._pipeline.take(it, tasks)
        else:
            episodes = self._collect(it, tasks, stats)
        t_collect = time.monotonic() - t0
        if cfg.run.save_episodes:
            save_episodes(episodes, self.out_dir / "episodes.jsonl", append=True)
        metrics: dict[str, Any] = episode_metrics(episodes)
        metrics["time/collect_s"] = t_collect  # async: the time the trainer waited for the batch
        if self._pipeline is not None:
            metrics["time/rollout_s"] = rollout_s
            t_collect = rollout_s
        metrics["throughput/gen_tokens_per_s"] = stats.get("generated_tokens", 0) / max(t_collect, 1e-9)
        for key in ("generate_s", "env_s"):  # the collection's own split: sampling vs env steps (sandbox I/O)
            if key in stats:
                metrics[f"time/rollout_{key}"] = float(stats[key])
        self._check_masked(episodes, metrics, it)
        reward_names = self.cfg.reward_components if spec.reward_components else None
        if reward_names:
            known = {k for e in episodes if e.train_mask for k in e.reward_components}
            missing = [k for k in reward_names if known and k not in known]
            if missing:
                raise ConfigError(f"algorithm.reward_components {missing} are not reward components of "
                                  f"{cfg.env.id}; it reports {sorted(known)}")
        # e.g. Tree-GRPO: a branch trains only its own steps (its copy of the parent's prefix is
        # masked) unless the estimator is told to follow the reference (shared_prefix: every_leaf)
        if cfg.algorithm.shuffle_rewards:  # the shuffled-reward control: same rewards, wrong episodes
            episodes = shuffled_rewards(episodes, cfg.run.seed * 1_000_003 + it)
        batch = to_sequences(episodes, self.tokenizer.pad_token_id, reward_names=reward_names,
                             **spec.sequence_options(cfg.algorithm.advantage_kwargs))
        t1 = time.monotonic()
        if batch.num_rows and int(batch.completion_mask.sum()) > 0:
            metrics.update(self._update(batch, it))
            if metrics["update/policy_steps"] > 0:  # not in critic_warmup: the policy changed
                self.policy_version += 1
        else:
            metrics["update/skipped"] = 1.0
        metrics["time/update_s"] = time.monotonic() - t1
        metrics.update(self._sync())
        metrics["policy/version"] = float(self.policy_version)
        metrics["time/iteration_s"] = time.monotonic() - t0
        self.iteration += 1
        if self._pipeline is not None:
            self._pipeline.completed(self.iteration)  # admits the rollouts of the next iterations
        self.history.append(metrics)
        return metrics

    def update_on(self, episodes: Sequence[Episode]) -> dict[str, Any]:
        """One update (advantages, PPO-clip epochs, sync) on episodes collected elsewhere, e.g. by an
        external harness through `codegym serve` (`codegym.integrations.capture`); its metrics."""
        spec = self.cfg.algorithm_spec
        reward_names = self.cfg.reward_components if spec.reward_components else None
        batch = to_sequences(list(episodes), self.tokenizer.pad_token_id, reward_names=reward_names,
                             **spec.sequence_options(self.cfg.algorithm.advantage_kwargs))
        if not batch.num_rows or int(batch.completion_mask.sum()) == 0:
            raise TrainingError("no completion tokens to train on: every episode is masked or empty")
        metrics = self._update(batch, self.iteration)
        if metrics["update/policy_steps"] > 0:
            self.policy_version += 1
        metrics.update(self._sync())
        metrics["policy/version"] = float(self.policy_version)
        return metrics

    def _collect(self, it: int, tasks: list[str], stats: dict[str, float]) -> list[Episode]:
        """The episodes of iteration `it` (seeded by the run seed and `it`), sampled by the engine."""
        from .rollout import collect, collect_trees

        cfg = self.cfg
        seed = cfg.run.seed * 1_000_003 + it * 7919
        pool = self.env_pool()
        common = dict(max_envs=pool.max_envs, seed=seed, batch_id=f"it{it}", stats=stats)
        if cfg.algorithm_spec.rollout == "trees":
            trees, rounds, expand = cfg.tree_shape
            return collect_trees(pool.make_env, self.agent, tasks, trees=trees, rounds=rounds, expand=expand,
                                 **common)
        return collect(pool.make_env, self.agent, tasks, group_size=cfg.rollout.group_size, **common)

    def _check_masked(self, episodes: Sequence[Episode], metrics: dict[str, Any], it: int) -> None:
        """Log why episodes were masked (a warning line and ``episodes/mask_reasons``); stop the run
        when every episode was: an update from nothing would hide a broken setup behind a 0 reward."""
        reasons = mask_reasons(episodes)
        if not reasons:
            return
        for e in episodes:
            if not e.train_mask:
                log.debug("iteration %d: episode %s of %s masked: %s", it, e.episode_id, e.task_id, e.mask_reason)
        metrics["episodes/mask_reasons"] = reasons
        line = mask_summary(it, len(episodes), reasons)
        if sum(reasons.values()) < len(episodes):
            log.warning(line)
            return
        raise TrainingError(f"{line}\nevery episode of iteration {it} was masked, so there is nothing to train on "
                            "(a sandbox, env or engine failure, not a policy that scores 0): fix the cause above "
                            "and rerun", metrics)

    def _sync(self) -> dict[str, float]:
        """Hand the current adapter to the engine and check that it serves what the trainer holds
        (`sync.probe` raises `AdapterSyncError` naming both versions); the probe's
        ``probe/mean_abs_diff`` and ``probe/max_abs_diff`` (the worst engine's)."""
        from .sync import hand_off, probe

        self.models.use_policy()
        hand_off(self.engine, self.models, self.policy_version, self.cfg, live=self._live_engine)
        if not self.cfg.run.probe:
            return {}
        results = probe(self.engine, self.models, self.policy_version, self.cfg)
        return {"probe/mean_abs_diff": max(r.mean_abs_diff for r in results),
                "probe/max_abs_diff": max(r.max_abs_diff for r in results)}

    # ---- the update --------------------------------------------------------------------------------

    @torch.no_grad()
    def _score(self, batch: SequenceBatch, rows: list[list[int]], dev: torch.device) -> dict[str, torch.Tensor]:
        """Old logprobs, reference logprobs and old values of every row, before any update."""
        cfg = self.cfg
        b, t = batch.input_ids.shape
        T = cfg.rollout.temperature
        need_ref = cfg.algorithm.kl_coef > 0 or cfg.algorithm.kl_in_reward > 0 or cfg.algorithm.log_kl_ref
        out = {"old": batch.old_logprobs.clone().float(), "ref": torch.zeros(b, t), "values": torch.zeros(b, t)}
        for mi in rows:
            w = int(batch.attention_mask[mi].sum(-1).max())
            ids, attn = batch.input_ids[mi, :w].to(dev), batch.attention_mask[mi, :w].to(dev)
            if cfg.algorithm.old_logprobs == "recompute":
                out["old"][mi, :w] = self.models.policy_logprobs(ids, attn, T).cpu()
            if need_ref:
                out["ref"][mi, :w] = self.models.ref_logprobs(ids, attn, T).cpu()
            if self.models.critic != "none":
                out["values"][mi, :w] = self.models.values(ids, attn).float().cpu()
        return out

    def _update(self, batch: SequenceBatch, it: int) -> dict[str, float]:
        from .advantages import compute_advantages
        from .losses import kl_in_reward, kl_loss, masked_mean, off_policy_weights, policy_loss, value_loss

        cfg, a = self.cfg, self.cfg.algorithm
        dev = self.models.device
        mask = batch.completion_mask.float()
        lengths = batch.attention_mask.sum(-1).tolist()
        all_rows = list(range(batch.num_rows))
        self.models.train(False)
        scored = self._score(batch, pack_micro_batches(all_rows, lengths, a.micro_batch_tokens), dev)
        old_lp, ref_lp, old_v = scored["old"], scored["ref"], scored["values"] * mask
        m: dict[str, Any] = {
            "policy/engine_logprob_diff": float(masked_mean((old_lp - batch.old_logprobs).abs(), mask)),
            "batch/rows": float(batch.num_rows), "batch/tokens": float(batch.attention_mask.sum()),
            # per-token entropy of the sampling policy at T, estimated by -log pi_old of the sampled tokens
            "policy/entropy": float(masked_mean(-old_lp, mask)),
        }
        m.update(staleness_metrics(batch.policy_versions, mask, self.policy_version))
        # off-policy correction: the engine sampled (an older version, other numerics); pi_old is ours
        offp = off_policy_weights(old_lp, batch.old_logprobs, mask, tis_cap=a.tis_cap,
                                  mask_bounds=tuple(a.icepop_bounds) if a.icepop_bounds else None)
        m.update(offp.metrics)
        is_weights = offp.weights if (a.tis_cap is not None or a.icepop_bounds is not None) else None
        # advantages, by registry name, from the inputs the algorithm's spec names
        spec = cfg.algorithm_spec
        inputs = batch.advantage_inputs(spec.name)
        if spec.critic:
            if a.kl_in_reward > 0 and "token_level_rewards" in inputs:
                klr = kl_in_reward(inputs["token_level_rewards"], old_lp, ref_lp, mask, beta=a.kl_in_reward)
                inputs["token_level_rewards"], m["policy/kl_in_reward"] = klr.rewards, float(klr.current_kl)
            inputs["values"] = old_v
        if spec.reward_components and a.component_weights is not None:
            inputs["reward_weights"] = list(a.component_weights)
        result = compute_advantages(cfg.estimator, strict=False, **inputs, **a.advantage_kwargs)
        adv, returns = result.advantages.float(), result.returns.float()
        m["advantages/mean"] = float(masked_mean(adv, mask))
        m["advantages/abs_mean"] = float(masked_mean(adv.abs(), mask))
        if spec.critic:
            m["values/mean"] = float(masked_mean(old_v, mask))
            m["returns/mean"] = float(masked_mean(returns, mask))

        update_policy = it >= a.critic_warmup  # critic_warmup is 0 unless the algorithm has a critic
        gen = torch.Generator().manual_seed(cfg.run.seed * 1_000_003 + it)
        sums: dict[str, float] = {}
        counts: dict[str, float] = {}

        def add(key: str, value: float, weight: float = 1.0) -> None:
            sums[key] = sums.get(key, 0.0) + value * weight
            counts[key] = counts.get(key, 0.0) + weight

        self.models.train(True)
        train_tokens, policy_steps, t0 = 0, 0, time.monotonic()
        for _epoch in range(a.epochs):
            perm = torch.randperm(batch.num_rows, generator=gen).tolist()
            n_mb = min(a.mini_batches, len(perm))
            for k in range(n_mb):
                mb = perm[k * len(perm) // n_mb: (k + 1) * len(perm) // n_mb]
                n_tok = float(mask[mb].sum())
                n_seq = float((mask[mb].sum(-1) > 0).sum())
                if n_tok == 0:
                    continue
                self.policy_opt.zero_grad(set_to_none=True)
                if self.critic_opt is not None:
                    self.critic_opt.zero_grad(set_to_none=True)
                pg_total = vf_total = 0.0
                for mi in pack_micro_batches(mb, lengths, a.micro_batch_tokens):
                    w = int(batch.attention_mask[mi].sum(-1).max())
                    ids, attn = batch.input_ids[mi, :w].to(dev), batch.attention_mask[mi, :w].to(dev)
                    cm, tok = mask[mi, :w].to(dev), float(mask[mi, :w].sum())
                    train_tokens += int(attn.sum())
                    agg = dict(agg_mode=a.loss_agg, num_tokens=n_tok, num_sequences=n_seq)
                    if update_policy:
                        lp = self.models.policy_logprobs(ids, attn, cfg.rollout.temperature)
                        out = policy_loss(lp, old_lp[mi, :w].to(dev), adv[mi, :w].to(dev), cm, clip_low=a.clip_low,
                                          clip_high=a.clip_high, dual_clip=a.dual_clip, **agg,
                                          token_weights=None if is_weights is None else is_weights[mi, :w].to(dev))
                        loss = out.loss
                        if a.kl_coef > 0:
                            kl = kl_loss(lp, ref_lp[mi, :w].to(dev), cm, kind=a.kl_kind, **agg)
                            loss = loss + a.kl_coef * kl
                            add("policy/kl_loss", float(kl.detach()))
                        loss.backward()
                        pg_total += float(out.loss.detach())
                        add("policy/clipfrac", float(out.clipfrac), tok)
                        add("policy/clipfrac_lower", float(out.clipfrac_lower), tok)
                        add("policy/approx_kl", float(out.approx_kl), tok)
                        if a.kl_coef > 0 or a.kl_in_reward > 0 or a.log_kl_ref:
                            add("policy/kl_ref", float(masked_mean(lp.detach() - ref_lp[mi, :w].to(dev), cm)), tok)
                    if self.critic_opt is not None:
                        v = self.models.values(ids, attn)
                        vl = value_loss(v, old_v[mi, :w].to(dev), returns[mi, :w].to(dev), cm,
                                        clip_range=a.value_clip, **agg)
                        (a.value_coef * vl.loss).backward()
                        vf_total += float(vl.loss.detach())
                        add("values/clipfrac", float(vl.clipfrac), tok)
                if update_policy:
                    add("grad_norm/policy", float(torch.nn.utils.clip_grad_norm_(
                        self.models.policy_parameters(), cfg.optim.max_grad_norm)))
                    policy_steps += 1
                    self.policy_opt.step()
                    self.policy_sched.step()
                    add("loss/policy", pg_total)
                if self.critic_opt is not None:
                    add("grad_norm/critic", float(torch.nn.utils.clip_grad_norm_(
                        self.models.critic_parameters(), cfg.optim.max_grad_norm)))
                    self.critic_opt.step()
                    self.critic_sched.step()
                    add("loss/value", vf_total)
        self.models.train(False)
        dt = time.monotonic() - t0
        m.update({k: sums[k] / counts[k] for k in sums if counts[k] > 0})
        m["throughput/train_tokens_per_s"] = train_tokens / max(dt, 1e-9)
        m["update/policy_steps"] = float(policy_steps)
        m["optim/lr"] = float(self.policy_sched.get_last_lr()[0])
        return m
