"""Checkpoints and resume: everything needed to continue a run exactly.

    save_checkpoint(trainer)              # runs/x/checkpoints/iter-000004/
    Trainer(cfg, resume="runs/x")         # the newest checkpoint of a run (or a checkpoint dir)

A checkpoint holds the trained tensors (policy and critic adapters, value head), both
optimizers and schedulers, the RNG states (python, torch), the task sampler's cursor, the
iteration and the policy version in ``trainer_state.pt``; the policy adapter as a peft
directory (``policy/``, loadable by `TransformersEngine.from_pretrained(..., adapter=)` and
``model.init_adapter``); and the config (``config.yaml``). Rollouts are seeded by the run seed
and the iteration, so a resumed run samples the same episodes and computes the same losses as
the run that was stopped (tests/trainer/test_checkpoint.py).
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

import torch

from .config import dump_config


def _ckpt_root(trainer: Any) -> Path:
    return Path(trainer.cfg.run.out_dir) / "checkpoints"


def save_checkpoint(trainer: Any, path: str | Path | None = None) -> Path:
    """Write the trainer's state after its last completed iteration; returns the directory."""
    root = _ckpt_root(trainer)
    path = Path(path) if path else root / f"iter-{trainer.iteration:06d}"
    tmp = path.with_name(path.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    state = {
        "iteration": trainer.iteration,
        "policy_version": trainer.policy_version,
        "models": trainer.models.trainable_state(),
        "policy_opt": trainer.policy_opt.state_dict(),
        "policy_sched": trainer.policy_sched.state_dict(),
        "critic_opt": trainer.critic_opt.state_dict() if trainer.critic_opt else None,
        "critic_sched": trainer.critic_sched.state_dict() if trainer.critic_sched else None,
        "sampler": trainer.sampler.state_dict(),
        "rng": {"python": random.getstate(), "torch": torch.get_rng_state(),
                "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None},
        "history": trainer.history,
    }
    torch.save(state, tmp / "trainer_state.pt")
    trainer.models.save_policy_adapter(tmp / "policy")
    dump_config(trainer.cfg, tmp / "config.yaml")
    shutil.rmtree(path, ignore_errors=True)
    tmp.rename(path)
    (root / "latest").write_text(path.name + "\n")
    keep = trainer.cfg.run.keep_checkpoints
    if keep and path.parent == root:
        for old in sorted(p for p in root.glob("iter-*") if p.is_dir() and not p.name.endswith(".tmp"))[:-keep]:
            shutil.rmtree(old, ignore_errors=True)
    return path


def find_checkpoint(path: str | Path) -> Path:
    """A checkpoint directory from itself, a run directory or a run's checkpoints/ directory."""
    p = Path(path)
    if (p / "trainer_state.pt").exists():
        return p
    for root in (p / "checkpoints", p):
        latest = root / "latest"
        if latest.exists() and (root / latest.read_text().strip() / "trainer_state.pt").exists():
            return root / latest.read_text().strip()
        found = sorted(q for q in root.glob("iter-*") if (q / "trainer_state.pt").exists())
        if found:
            return found[-1]
    raise FileNotFoundError(f"no checkpoint in {path} (expected trainer_state.pt, or checkpoints/iter-*/)")


def load_checkpoint(trainer: Any, path: str | Path) -> Path:
    """Restore a trainer built from the same config; returns the checkpoint directory used."""
    ckpt = find_checkpoint(path)
    state = torch.load(ckpt / "trainer_state.pt", map_location="cpu", weights_only=False)
    trainer.models.load_trainable_state(state["models"])
    trainer.policy_opt.load_state_dict(state["policy_opt"])
    trainer.policy_sched.load_state_dict(state["policy_sched"])
    if (state["critic_opt"] is None) != (trainer.critic_opt is None):
        raise ValueError(f"{ckpt}: the checkpoint and this config disagree on having a critic")
    if trainer.critic_opt is not None:
        trainer.critic_opt.load_state_dict(state["critic_opt"])
        trainer.critic_sched.load_state_dict(state["critic_sched"])
    trainer.sampler.load_state_dict(state["sampler"])
    random.setstate(state["rng"]["python"])
    torch.set_rng_state(state["rng"]["torch"])
    if state["rng"].get("cuda") is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["rng"]["cuda"])
    trainer.iteration = int(state["iteration"])
    trainer.policy_version = int(state["policy_version"])
    trainer.history = list(state.get("history", []))
    return ckpt
