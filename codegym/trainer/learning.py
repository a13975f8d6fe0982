"""Does RL generalize? A warm start, RL arms and controls, all judged on held-out instances.

    study = LearningStudy(cfg, train_ids, heldout_ids, out="runs/learning/seed0")
    start = study.warm_start(steps=300, lr=1e-2)                    # SFT on train demonstrations only
    study.evaluate_start()                                          # greedy, T=1 and lower temperatures
    row = study.rl("gigpo", seconds=600)                            # LoRA RL on train instances
    study.rl("gigpo", seconds=600, shuffle_rewards=True, name="shuffled")   # control
    study.sft_continued(tokens=row["trained_tokens"], lr=1e-3)     # control: the RL arm's training tokens
    study.table()                                                   # held-out pass@1, intervals, deltas

The protocol of the learning benchmark (`benchmarks/learning.py`) and the main job
(`codegym main`): `cfg` is a training config on ``codegym/Families-v0``; the warm start clones
the demonstrations (`sft.demonstration`) of `train_ids` only (full weights of the tiny base,
saved as a model directory that every arm starts from), RL samples train instances only, and
every arm is evaluated with `HeldoutEval` on the same `heldout_ids` (pass@1, greedy and T=1,
one episode per task, Wilson intervals; deltas by a paired bootstrap over tasks). The controls:

- ``warm T=t``: the warm start sampled at lower temperatures, no update;
- ``sft-continued``: behaviour cloning continued on the train demonstrations for as many
  training tokens as an RL arm passed through its updates (a step count: deterministic);
- ``shuffled``: the same RL with `algorithm.shuffle_rewards` (rewards permuted across the batch).

Each RL arm stops at `seconds` or `env_steps` (turns summed over its episodes), whichever
comes first, so algorithms can be compared at equal env steps.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from .heldout import EvalResult, HeldoutEval, heldout_config, paired_bootstrap

#: temperatures of the "warm start sampled lower" control (greedy is reported on its own)
LOW_TEMPERATURES = (0.3, 0.5, 0.7)


def pick_tasks(families: Sequence[str], n_train: int, n_heldout: int, seed: int) -> tuple[list[str], list[str]]:
    """`n_train` train and `n_heldout` held-out instance ids of `families` (split evenly, drawn
    with `seed`): the tasks of one study, the same for every arm.

        train, held = pick_tasks(["lookup"], 64, 64, seed=0)
    """
    import random

    from codegym.tasks.suites.families import family_tasks

    rng = random.Random(f"learning-{seed}")
    train: list[str] = []
    held: list[str] = []
    for i, fam in enumerate(families):
        k = len(families)
        train += rng.sample([t.instance_id for t in family_tasks("train", fam)], n_train // k + (i < n_train % k))
        held += rng.sample([t.instance_id for t in family_tasks("heldout", fam)], n_heldout // k + (i < n_heldout % k))
    return train, held


def copy_base(model: Any, tok: Any, model_cfg: Any, *, width: int, steps: int, lr: float = 1e-3,
              say: Callable[[str], None] = print) -> list[float]:
    """`sft.copy_pretrain` of `model` (the random base of `model_cfg`) in place, seeded by
    ``model_cfg.tiny_seed``, rows of the last stage `width` long; returns its losses. A tiny base
    (built from a config, so the same weights every time) is cached under
    ``$CODEGYM_CACHE/tiny/copy-<hash>/`` by everything that determines the result; a second call
    loads the weights (and the losses) instead of training again."""
    import torch

    from .sft import COPY_STAGES, copy_pretrain

    cache = None
    if model_cfg.base == "tiny" or model_cfg.base.startswith("tiny:"):
        import hashlib

        from codegym.agents.tiny import tiny_tokenizer_path
        from codegym.tasks.cache import cache_subdir

        key = json.dumps({"base": model_cfg.base, "seed": model_cfg.tiny_seed, "tokenizer": tiny_tokenizer_path().name,
                          "stages": [repr(st) for st in COPY_STAGES], "width": width, "steps": steps, "lr": lr,
                          "torch": torch.__version__.split("+")[0], "v": 1})
        cache = cache_subdir("tiny") / f"copy-{hashlib.sha256(key.encode()).hexdigest()[:12]}"
        if (cache / "model.pt").is_file():
            model.load_state_dict(torch.load(cache / "model.pt", weights_only=True))
            losses = json.loads((cache / "losses.json").read_text())
            say(f"copy pre-training: cached ({cache}), {len(losses)} steps, last loss {losses[-1]:.3f}")
            _warn_if_no_copy(losses, width, say)
            return losses
    say(f"copy pre-training: at most {steps} steps, last-stage rows {width} tokens long (minutes on a CPU"
        f"{'; kept in ' + str(cache) + ' for the next run' if cache is not None else ''})")
    t0 = time.monotonic()
    losses = copy_pretrain(model, len(tok), width=width, steps=steps, lr=lr, seed=model_cfg.tiny_seed,
                           skip_ids=tok.all_special_ids)
    say(f"copy pre-training: {len(losses)} steps, loss {losses[0]:.2f} -> {losses[-1]:.3f} "
        f"({time.monotonic() - t0:.0f} s)")
    _warn_if_no_copy(losses, width, say)
    if cache is not None:
        tmp = cache.with_name(cache.name + f".tmp{os.getpid()}")
        tmp.mkdir(parents=True, exist_ok=True)
        torch.save(model.state_dict(), tmp / "model.pt")
        (tmp / "losses.json").write_text(json.dumps(losses))
        try:
            os.replace(tmp, cache)
        except OSError:  # another process cached it first (the same weights)
            shutil.rmtree(tmp, ignore_errors=True)
    return losses


#: a copy loss above this (nats per copied token; a random base starts near ln(vocab) ~ 7) means
#: the base did not learn to copy: a warm start on it learns no call that copies a value it read
NO_COPY_LOSS = 2.0


def _warn_if_no_copy(losses: list[float], width: int, say: Callable[[str], None]) -> None:
    """Say so, loudly, when the copy pre-training ended without learning to copy (measured: a last
    stage 768-1,280 tokens wide collapses at its first step and sits at 7.12; 640 learns)."""
    last = sum(losses[-20:]) / len(losses[-20:]) if losses else 0.0  # one step's loss is noisy
    if losses and last > NO_COPY_LOSS and len(losses) >= 100:
        say(f"WARNING: copy pre-training ended at loss {last:.2f} (> {NO_COPY_LOSS}, mean of the last 20 steps): this base did not "
            f"learn to copy at width {width}, and a warm start on it will not learn calls that copy what they "
            f"read; a narrower last stage (e.g. --copy-width 640) does (docs/training.md, 'Copying')")


class LearningStudy:
    """See the module docstring. Results accumulate in `results` (name -> {"greedy", "T1", ...})."""

    def __init__(self, cfg: Any, train_ids: Sequence[str], heldout_ids: Sequence[str], out: str | Path, *,
                 say: Callable[[str], None] = print, eval_seed: int = 12345):
        if cfg.env.kwargs.get("split", "train") != "train":
            raise ValueError("LearningStudy: cfg.env must be on the train split (env.kwargs.split: train)")
        overlap = set(train_ids) & set(heldout_ids)
        if overlap:
            raise ValueError(f"train and held-out tasks overlap: {sorted(overlap)[:3]}")
        self.cfg = replace(cfg, env=replace(cfg.env, tasks=list(train_ids)))
        self.train_ids, self.heldout_ids = list(train_ids), list(heldout_ids)
        self.out, self.say = Path(out), say
        self.out.mkdir(parents=True, exist_ok=True)
        self.heldout = HeldoutEval(heldout_config(self.cfg), self.heldout_ids, seed=eval_seed)
        self.base_dir: Path | None = None
        self.episodes: list[Any] = []
        self.results: dict[str, dict[str, Any]] = {}
        self.curves: dict[str, list[dict[str, Any]]] = {}

    # ---- the warm start ---------------------------------------------------------------------------

    def prepare_base(self, *, flawed_fraction: float = 0.0, copy_steps: int = 0, copy_lr: float = 1e-3,
                     copy_width: int | None = None) -> tuple[Any, Any, set[str], list[float], float, float]:
        """The warm start's first half: the base (copy pre-trained when `copy_steps`, from the
        cache when it is there) and the train instances' demonstrations (`self.episodes`).
        Returns ``(model, tok, flawed ids, copy losses, demo seconds, copy seconds)``. Run alone
        (``codegym main --prepare-only``), it fills the copy base's cache, so the timed job after it
        only loads it.

        `copy_width` sets the copy pre-training's last-stage width instead of the rule below
        (the longest demonstration plus 64, rounded up to 128, at least 640): ``noisy_log`` at
        budget 512 has rows of ~700 tokens, whose rule (768) collapses in the last stage (loss
        9.3 at its first step, then 7.12 for 500 steps, 817 s), while the 640-wide base copies
        at 768 already (copy NLL ~0.9, 0.3 at 96)."""
        import random

        import torch

        from .loop import default_make_env
        from .models import load_base
        from .sft import oracle_episodes

        if not 0.0 <= flawed_fraction < 1.0:
            raise ValueError(f"flawed_fraction must be in [0, 1), got {flawed_fraction}")
        t0 = time.monotonic()
        torch.manual_seed(self.cfg.run.seed)
        model, tok = load_base(self.cfg.model)
        make_env = default_make_env(self.cfg)
        env = make_env()
        try:
            tasks = [t for t in env.unwrapped.tasks if t.instance_id in set(self.train_ids)]
        finally:
            env.close()
        can = sorted(t.instance_id for t in tasks if t.metadata.get("flawed_demonstration"))
        flawed = set(random.Random(f"flawed-{self.cfg.run.seed}").sample(can, round(flawed_fraction * len(can))))
        self.say(f"demonstrations: {len(tasks)} train instances played through the env")
        self.episodes = oracle_episodes(make_env, tok, tasks, seed=self.cfg.run.seed,
                                        max_envs=min(16, self.cfg.rollout.max_envs), flawed=flawed)
        t_demo = time.monotonic() - t0
        copy_losses: list[float] = []
        if copy_steps:
            # rows at least as long as the longest demonstration plus room for the policy's own
            # longer episodes; coarse (at least 640, a multiple of 128) so that every seed's demos
            # of a family give the same width, hence the same cached base
            longest = max(len(seg) for e in self.episodes for seg in e.segments)
            width = copy_width or max(640, 128 * -(-(longest + 64) // 128))
            copy_losses = copy_base(model, tok, self.cfg.model, width=width, steps=copy_steps, lr=copy_lr,
                                    say=self.say)
        return model, tok, flawed, copy_losses, t_demo, time.monotonic() - t0 - t_demo

    def warm_start(self, *, steps: int, lr: float, batch_rows: int = 8, target_success: float | None = None,
                   eval_every: int = 5, flawed_fraction: float = 0.0, copy_steps: int = 0,
                   copy_lr: float = 1e-3, copy_width: int | None = None, decay: bool = True) -> dict[str, Any]:
        """Full-weight SFT of the base on the train instances' demonstrations; saved to OUT/warm.
        `decay`: the learning rate falls linearly to 0 over `steps` (`sft.sft`), so the warm start
        ends near the demonstrations' mix rather than where its last batches pushed it.

        `flawed_fraction` of the train instances (drawn with the run's seed, among those whose
        generator wrote a ``flawed_demonstration``) are demonstrated by it instead: imperfect
        demonstrations (``lookup``: skip the read, guess the value). The warm start then skips
        the read about that often; sampling it colder, or cloning the same mix longer, cannot
        fix that, the reward can.

        `copy_steps` > 0 (a cap on its steps) first teaches the random base to copy from its
        context on synthetic rows (`sft.copy_pretrain`: random token ids, no task text), the
        last stage's rows as long as the longest demonstration: the tiny base does not learn to
        copy a value within a warm start otherwise (`copy_base`). The copy pre-training is part of
        the base, not of the study: it is seeded by the base's seed (``model.tiny_seed``), so every
        seed of a study starts from the same copying base, and it is cached on disk."""
        from .sft import sft

        t0 = time.monotonic()
        model, tok, flawed, copy_losses, t_demo, t_copy = self.prepare_base(
            flawed_fraction=flawed_fraction, copy_steps=copy_steps, copy_lr=copy_lr, copy_width=copy_width)
        history: list[dict[str, Any]] = []
        losses = sft(model, self.episodes, steps=steps, lr=lr, batch_rows=batch_rows, seed=self.cfg.run.seed,
                     full=True, target_success=target_success, eval_every=eval_every, history=history,
                     decay=decay)
        self.base_dir = self.out / "warm"
        model.save_pretrained(str(self.base_dir))
        tok.save_pretrained(str(self.base_dir))
        summary = {"episodes": len(self.episodes), "flawed": len(flawed),
                   "flawed_passed": sum(e.reward >= 1.0 for e in self.episodes if e.task_id in flawed),
                   "steps": len(losses), "first_loss": losses[0] if losses else None,
                   "last_loss": losses[-1] if losses else None, "lr": lr,
                   "success": history[-1]["success"] if history else None, "target_success": target_success,
                   "copy_steps": len(copy_losses), "copy_last_loss": copy_losses[-1] if copy_losses else None,
                   "copy_seconds": t_copy, "demo_seconds": t_demo, "seconds": time.monotonic() - t0, "base": str(self.base_dir)}
        (self.out / "warm.json").write_text(json.dumps({**summary, "losses": losses, "history": history}, indent=2))
        self.say(f"warm start: {len(self.episodes)} demonstrations of train instances ({len(flawed)} flawed), "
                 f"{len(losses)} steps, loss "
                 f"{summary['first_loss']} -> {summary['last_loss']} ({summary['seconds']:.0f} s)")
        self.warm_summary = summary
        return summary

    def _warm_cfg(self) -> Any:
        if self.base_dir is None:
            raise RuntimeError("run warm_start() first")
        return replace(self.cfg, model=replace(self.cfg.model, base=str(self.base_dir), init_adapter=None))

    def _engine(self, model: Any, tok: Any) -> Any:
        from codegym.agents.engines import TransformersEngine

        return TransformersEngine(model, tok, max_batch_size=self.cfg.rollout.max_batch_size)

    def _record(self, name: str, results: Sequence[EvalResult], **extra: Any) -> dict[str, Any]:
        row = {"arm": name, **{("greedy" if r.temperature == 0 else f"T{r.temperature:g}"): r for r in results},
               **extra}
        self.results[name] = row
        shown = "  ".join(f"{k} {v.rate}" for k, v in row.items() if isinstance(v, EvalResult))
        self.say(f"held-out [{name}]: {shown}")
        return row

    # ---- arms ---------------------------------------------------------------------------------------

    def evaluate_start(self, low_temperatures: Sequence[float] = LOW_TEMPERATURES) -> None:
        """The warm start on held-out: greedy and T=1 (the starting point) and, as a control, the
        lower temperatures (no update)."""
        from .models import load_base

        model, tok = load_base(self._warm_cfg().model)
        engine = self._engine(model.eval(), tok)
        greedy = self.heldout.run(engine, tok, 0.0)
        t1 = self.heldout.run(engine, tok, 1.0)
        self._record("warm start", [greedy, t1], kind="start")
        for t in low_temperatures:
            self._record(f"warm T={t:g}", [self.heldout.run(engine, tok, t)], kind="control")

    def rl(self, algo: str, *, seconds: float = float("inf"), env_steps: int | None = None,
           iterations: int | None = None, shuffle_rewards: bool = False,
           name: str | None = None, eval_every: int = 0, overrides: dict[str, Any] | None = None,
           seed: int | None = None, replicate_of: str | None = None) -> dict[str, Any]:
        """LoRA RL from the warm start on train instances until `seconds`, `env_steps` or `iterations`
        (the first reached); then the held-out evaluation. `eval_every` > 0 adds a held-out T=1 point to the curve every that
        many iterations (extra cost). `seed`: the run's seed (default the study's): another
        replicate of the same arm (its rollouts and, with `shuffle_rewards`, its permutations), named
        with `replicate_of` (the first replicate's name) so that `spread` groups them."""
        from .config import config_from_dict
        from .loop import Trainer
        from .metrics import MetricsLogger

        name = name or (f"{algo} shuffled" if shuffle_rewards else algo)
        d = self._warm_cfg().to_dict()
        d["algorithm"] = {**d["algorithm"], "name": algo, "shuffle_rewards": shuffle_rewards, "log_kl_ref": True}
        algo_defaults = (overrides or {}).get(algo, {})
        for section, values in algo_defaults.items():
            d[section] = {**d.get(section, {}), **values}
        slug = name.replace(" ", "-")
        d["run"] = {**d["run"], "out_dir": str(self.out / slug), "iterations": 1_000_000, "progress": False,
                    "tensorboard": False, **({} if seed is None else {"seed": seed})}
        cfg = config_from_dict(d)
        trainer = Trainer(cfg)
        log = MetricsLogger(cfg.run.out_dir, tensorboard=False, progress=False)
        rows: list[dict[str, Any]] = []
        steps_done, trained_tokens, t0 = 0, 0, time.monotonic()
        try:
            while (time.monotonic() - t0 < seconds and (env_steps is None or steps_done < env_steps)
                   and (iterations is None or trainer.iteration < iterations)):
                m = trainer.train_iteration()
                steps_done += int(round(m.get("episodes/count", 0) * m.get("episodes/turns", 0)))
                if m.get("update/policy_steps", 0) > 0:  # tokens through the policy's forward+backward passes
                    trained_tokens += int(m.get("batch/tokens", 0)) * cfg.algorithm.epochs
                m = {**m, "env_steps": steps_done, "elapsed_s": time.monotonic() - t0}
                if eval_every and trainer.iteration % eval_every == 0:
                    r = self.heldout.run(trainer.engine, trainer.tokenizer, 1.0, name=f"{slug}-it{trainer.iteration}")
                    m["heldout/pass_T1"] = r.rate.value
                log.log(trainer.iteration - 1, m)
                rows.append({"iteration": trainer.iteration - 1, **m})
                self.say(f"[{name}] it {trainer.iteration - 1}: train pass {m.get('episodes/pass_rate', 0):.3f} "
                         f"entropy {m.get('policy/entropy', float('nan')):.3f} "
                         f"kl_ref {m.get('policy/kl_ref', float('nan')):.4f} segments/ep "
                         f"{m.get('batch/segments', 0) / max(1, m.get('episodes/count', 1)):.2f} "
                         f"({time.monotonic() - t0:.0f} s, {steps_done} env steps)")
            train_s = time.monotonic() - t0
            results = [self.heldout.run(trainer.engine, trainer.tokenizer, 0.0),
                       self.heldout.run(trainer.engine, trainer.tokenizer, 1.0)]
        finally:
            log.close()
            trainer.close()
        self.curves[name] = rows
        kept = [r for r in rows if "episodes/count" in r]
        seg = sum(r.get("batch/segments", 0) for r in kept) / max(1, sum(r["episodes/count"] for r in kept))
        return self._record(name, results, kind="control" if shuffle_rewards else "rl", algo=algo, run_seed=cfg.run.seed,
                            replicate_of=replicate_of or name,
                            iterations=len(rows), env_steps=steps_done, train_seconds=train_s,
                            trained_tokens=trained_tokens, train_segments_per_episode=seg,
                            final_entropy=rows[-1].get("policy/entropy") if rows else None,
                            final_kl_ref=rows[-1].get("policy/kl_ref") if rows else None)

    def sft_continued(self, *, tokens: int | None = None, seconds: float | None = None, lr: float,
                      batch_rows: int = 8, decay: bool = True) -> dict[str, Any]:
        """Behaviour cloning continued from the warm start on the same train demonstrations, then the
        held-out evaluation: "SFT continued for the same compute" as an RL arm.

        `tokens` (the default budget): as many optimizer steps as it takes to pass that many tokens
        through forward+backward, ``steps = round(tokens / (batch_rows * mean demonstration row
        length))``, with `tokens` an RL arm's ``trained_tokens`` (its update epochs times its batches'
        tokens). A step count is deterministic, so a seeded study is; the RL arm's generation is not
        counted (SFT needs none). `seconds` instead: wall time, as before (load-dependent, so not
        reproducible). `decay`: the learning rate falls linearly to 0 over the budget, as in the warm
        start."""
        from .data import to_sequences
        from .models import load_base
        from .sft import sft

        if (tokens is None) == (seconds is None):
            raise ValueError("sft_continued needs exactly one budget: tokens (an RL arm's trained_tokens) or seconds")
        model, tok = load_base(self._warm_cfg().model)
        steps = 10**9
        if tokens is not None:
            demo = to_sequences(self.episodes, tok.pad_token_id)
            per_row = float(demo.attention_mask.sum()) / max(1, demo.num_rows)
            steps = max(1, round(tokens / (batch_rows * per_row)))
        t0 = time.monotonic()
        losses = sft(model, self.episodes, steps=steps, lr=lr, batch_rows=batch_rows, seed=self.cfg.run.seed + 1,
                     full=True, max_seconds=seconds, decay=decay)
        train_s = time.monotonic() - t0
        engine = self._engine(model.eval(), tok)
        return self._record("sft-continued", [self.heldout.run(engine, tok, 0.0), self.heldout.run(engine, tok, 1.0)],
                            kind="control", steps=len(losses), train_seconds=train_s, budget_tokens=tokens,
                            last_loss=losses[-1] if losses else None)

    # ---- the verdict --------------------------------------------------------------------------------

    def verdict(self, margin: float = 0.10) -> dict[str, Any]:
        """Per RL arm and metric (greedy, T=1): delta to the best control on that metric, its paired
        bootstrap interval, and whether the target holds (delta >= margin and the arm's pass rate above
        the best control's Wilson upper bound)."""
        out: dict[str, Any] = {}
        controls = {k: v for k, v in self.results.items() if v.get("kind") in ("control", "start")}
        for name, row in self.results.items():
            if row.get("kind") != "rl":
                continue
            arm: dict[str, Any] = {}
            for metric in ("greedy", "T1"):
                # best control: the highest pass rate any control reaches at any temperature it was run at
                cands = [(r.rate.value, f"{cname} ({m})", r) for cname, c in controls.items()
                         for m, r in c.items() if isinstance(r, EvalResult)]
                if not cands or metric not in row:
                    continue
                best_v, best_name, best = max(cands, key=lambda x: x[0])
                mine = row[metric]
                delta, (lo, hi) = paired_bootstrap(mine.passed, best.passed)
                arm[metric] = {"pass": mine.rate.value, "best_control": best_name, "best_control_pass": best_v,
                               "delta": delta, "delta_ci95": [lo, hi],
                               "holds": delta >= margin and mine.rate.value > best.rate.interval[1]}
            out[name] = arm
        return out

    def spread(self) -> dict[str, dict[str, Any]]:
        """Per arm run more than once (rows sharing `replicate_of`): each metric's pass rates over the
        replicates, their mean, min and max. The verdict still takes every replicate as a control of
        its own (the best one counts); this says how far one run of the arm can be trusted."""
        groups: dict[str, list[dict[str, Any]]] = {}
        for row in self.results.values():
            if row.get("replicate_of"):
                groups.setdefault(row["replicate_of"], []).append(row)
        out: dict[str, dict[str, Any]] = {}
        for name, rows in groups.items():
            if len(rows) < 2:
                continue
            out[name] = {}
            for metric in ("greedy", "T1"):
                vals = [r[metric].rate.value for r in rows if isinstance(r.get(metric), EvalResult)]
                if vals:
                    out[name][metric] = {"runs": vals, "mean": sum(vals) / len(vals), "min": min(vals), "max": max(vals)}
        return out

    def table(self) -> str:
        """Markdown: every arm's held-out pass@1 (greedy, T=1) with Wilson intervals, then the verdict."""
        lines = ["| arm | kind | held-out greedy | held-out T=1 | other T | train s | env steps | segments/episode |",
                 "|---|---|---|---|---|---|---|---|"]
        for name, row in self.results.items():
            other = ", ".join(f"{k}: {v.rate}" for k, v in row.items()
                              if isinstance(v, EvalResult) and k not in ("greedy", "T1"))
            g, t = row.get("greedy"), row.get("T1")
            seg = row.get("train_segments_per_episode")
            seg_text = f"{seg:.2f} (train)" if seg is not None else f"{t.segments_per_episode:.2f} (eval)" if t else ""
            lines.append(f"| {name} | {row.get('kind')} | {g.rate if g else ''} | {t.rate if t else ''} | {other} | "
                         f"{row.get('train_seconds', 0):.0f} | {row.get('env_steps', '')} | {seg_text} |")
        v = self.verdict()
        if v:
            lines += ["", "| RL arm | metric | pass | best control | delta [95% paired bootstrap] | target |",
                      "|---|---|---|---|---|---|"]
            for name, arm in v.items():
                for metric, x in arm.items():
                    lines.append(f"| {name} | {metric} | {x['pass']:.3f} | {x['best_control']} "
                                 f"{x['best_control_pass']:.3f} | {x['delta']:+.3f} [{x['delta_ci95'][0]:+.3f}, "
                                 f"{x['delta_ci95'][1]:+.3f}] | {'holds' if x['holds'] else 'misses'} |")
        for name, metrics in self.spread().items():
            lines.append("")
            lines.append(f"{name}, {len(next(iter(metrics.values()))['runs'])} replicates: " + "; ".join(
                f"{m} mean {x['mean']:.3f} (min {x['min']:.3f}, max {x['max']:.3f}; runs "
                + ", ".join(f"{v:.3f}" for v in x["runs"]) + ")" for m, x in metrics.items()))
        return "\n".join(lines)

    def summary(self) -> dict[str, Any]:
        def plain(row: dict[str, Any]) -> dict[str, Any]:
            return {k: (v.to_dict() if isinstance(v, EvalResult) else v) for k, v in row.items()}

        return {"train_tasks": len(self.train_ids), "heldout_tasks": len(self.heldout_ids),
                "warm_start": getattr(self, "warm_summary", None),
                "arms": {k: plain(v) for k, v in self.results.items()}, "verdict": self.verdict(),
                "spread": self.spread(),
                "curves": {k: [{c: r.get(c) for c in CURVE_KEYS if c in r} for r in rows]
                           for k, rows in self.curves.items()}}

    def write(self) -> Path:
        path = self.out / "summary.json"
        path.write_text(json.dumps(self.summary(), indent=2))
        plot_study(self, self.out / "heldout.png")
        return path

    def cleanup(self) -> None:
        """Remove the saved warm-start weights (a few MB per seed)."""
        if self.base_dir is not None:
            shutil.rmtree(self.base_dir, ignore_errors=True)


CURVE_KEYS = ("iteration", "env_steps", "elapsed_s", "reward/mean", "episodes/pass_rate", "heldout/pass_T1",
              "policy/entropy", "policy/kl_ref", "batch/segments", "episodes/count")


def plot_study(study: LearningStudy, path: str | Path) -> Path:
    """Left: every arm's held-out pass@1 (greedy and T=1, Wilson 95% bars). Right: the RL arms'
    training pass rate per iteration (train instances), with held-out T=1 points where measured."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 4.2))
    names = list(study.results)
    def pick(row: dict[str, Any], metric: str) -> Any:
        if metric != "lower T":
            return row.get(metric)
        return next((v for k, v in row.items() if isinstance(v, EvalResult) and k not in ("greedy", "T1")), None)

    for j, metric in enumerate(("greedy", "T1", "lower T")):
        xs, ys, lo, hi = [], [], [], []
        for i, n in enumerate(names):
            r = pick(study.results[n], metric)
            if r is None:
                continue
            a, b = r.rate.interval
            xs.append(i + (j - 1) * 0.27)
            ys.append(r.rate.value)
            lo.append(r.rate.value - a)
            hi.append(b - r.rate.value)
        if xs:
            ax.bar(xs, ys, width=0.27, yerr=[lo, hi], capsize=3, label=f"held-out pass@1, {metric}")
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8)
    ax.set_title(f"held-out ({len(study.heldout_ids)} tasks), 95% Wilson intervals")
    for k, (name, rows) in enumerate(study.curves.items()):
        its = [r["iteration"] for r in rows]
        bx.plot(its, [r.get("episodes/pass_rate", float("nan")) for r in rows], color=f"C{k}", alpha=0.6,
                label=f"{name}: train pass")
        pts = [(r["iteration"], r["heldout/pass_T1"]) for r in rows if "heldout/pass_T1" in r]
        if pts:
            bx.plot(*zip(*pts, strict=True), "o--", color=f"C{k}", label=f"{name}: held-out T=1")
    start = study.results.get("warm start", {}).get("T1")
    if start is not None:
        bx.axhline(start.rate.value, color="k", ls=":", lw=1, label="warm start, held-out T=1")
    bx.set_xlabel("iteration")
    bx.set_ylim(0, 1)
    bx.set_title("RL arms: pass rate per iteration")
    bx.legend(fontsize=7)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
