"""Behaviour cloning from oracle episodes: a short warm start for the policy adapter.

    episodes = oracle_episodes(make_env, tokenizer, tasks)          # real env episodes, reward 1 each
    losses = sft(models, episodes, steps=40, lr=1e-3)               # the `policy` adapter learns them
    models.save_policy_adapter("runs/sft/policy")                   # -> model.init_adapter

    codegym sft examples/train_gigpo.yaml --steps 40 --out runs/sft

The oracle's actions are rendered by the same `LLMAgent` the trainer samples with, so the
episodes hold the exact token ids the policy will see (chat template, tool schemas, the env's
observations). The actions come from the task itself (`demonstration`), never from a suite's
internals: the generator's own ``metadata["demonstration"]`` where it wrote one (the task
families: read first, then act), else the reference patch in its shorter form: *compact*
``create`` calls with each changed file's new text (40-60 tokens on the toy suite instead of a
bash heredoc with a diff) or a ``git apply`` of it. Only episodes the grader scored 1 are
kept. The loss is the token-mean negative log-likelihood of the completion tokens
(temperature 1), i.e. exactly what the policy will sample.
"""

from __future__ import annotations

import json
import math
import random
import threading
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any

from codegym.agents import LLMAgent
from codegym.agents.engines.base import Completion, GenerationRequest

from .data import Episode


def demonstration(task: Any, flawed: bool = False) -> list[Any]:
    """The tool calls (`ToolCall`s) that solve `task`, then ``submit``: the task's own
    ``metadata["demonstration"]`` when its generator wrote one (reads first, e.g. the task
    families), else its reference patch, in the shorter of two forms: ``create`` per changed
    file (the whole new text) or a bash ``git apply`` of the patch.

    ``flawed=True``: the generator's ``metadata["flawed_demonstration"]`` instead, an imperfect
    demonstration (e.g. the ``lookup`` family's: skip the read, guess the value), which need not
    solve the task."""
    from codegym.toolcall import ToolCall

    if flawed:
        demo = task.metadata.get("flawed_demonstration")
        if not demo:
            raise ValueError(f"task {task.instance_id} has no flawed_demonstration (its generator wrote none)")
    else:
        demo = task.metadata.get("demonstration")
    if demo:
        calls = [ToolCall(c["name"], dict(c.get("arguments") or {})) for c in demo]
        return calls if calls[-1].name == "submit" else [*calls, ToolCall("submit", {})]
    files = reference_files(task)
    if files is not None and sum(map(len, files.values())) <= len(task.patch):
        calls = [ToolCall("create", {"path": p, "file_text": c}) for p, c in sorted(files.items())]
    else:
        patch = task.patch if task.patch.endswith("\n") else task.patch + "\n"
        calls = [ToolCall("bash", {"command": f"git apply --whitespace=nowarn - <<'EOF_ORACLE'\n{patch}EOF_ORACLE"})]
    return [*calls, ToolCall("submit", {})]


def reference_files(task: Any) -> dict[str, str] | None:
    """{path: text after the reference patch} for every file the patch touches, read from the task's
    repository (its base commit, the patch applied to a scratch index); None when that cannot be
    done (no local repository, a deleted or binary file, a patch that does not apply)."""
    import os
    import subprocess
    import tempfile
    from pathlib import Path

    from codegym.tasks.gitrepo import git_env

    repo = Path(task.repo)
    if not task.patch.strip() or not repo.is_dir():
        return None
    git_dir = repo / ".git" if (repo / ".git").exists() else repo
    with tempfile.TemporaryDirectory() as tmp:
        env = {**git_env(), "GIT_DIR": str(git_dir), "GIT_INDEX_FILE": os.path.join(tmp, "index")}

        def git(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
            return subprocess.run(["git", "-c", "safe.directory=*", *args], input=stdin, env=env, cwd=tmp,
                                  capture_output=True, text=True, check=False)

        patch = task.patch if task.patch.endswith("\n") else task.patch + "\n"
        if git("read-tree", task.base_commit).returncode or git("apply", "--cached", "-", stdin=patch).returncode:
            return None
        out = {}
        for path in task.patch_files():
            shown = git("show", f":{path}")
            if shown.returncode:
                return None
            out[path] = shown.stdout
        return out


def compact_oracle_calls(task: Any, flawed: bool = False) -> list[str]:
    """`demonstration(task, flawed)` as the tool-call texts the policy emits."""
    from codegym.envs.parsing import format_tool_call

    return [format_tool_call(c) for c in demonstration(task, flawed)]


class OracleEngine:
    """An engine that "samples" the compact oracle's next call for the task in the prompt.

    The task is found by its problem statement in the decoded prompt and the turn by the number
    of assistant turns so far. No eos is appended (the agent stops at the end of a tool call),
    every logprob is 0. Tasks in `flawed` get their flawed demonstration.
    """

    probe_tolerance = float("inf")

    def __init__(self, tokenizer: Any, tasks: Sequence[Any], flawed: Collection[str] = ()):
        self.tokenizer, self.policy_version = tokenizer, 0
        self.eos_token_ids = [int(tokenizer.eos_token_id)]
        self.calls = {t.problem_statement: compact_oracle_calls(t, t.instance_id in flawed) for t in tasks}
        #: by instance id, for requests that name their task (`OracleAgent`): statements can repeat
        #: (every ``lookup`` instance has the same one), ids cannot
        self.calls_by_id = {t.instance_id: compact_oracle_calls(t, t.instance_id in flawed) for t in tasks}
        self._lock = threading.Lock()

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        out = []
        for r in requests:
            prompt = self.tokenizer.decode(r.prompt_ids, skip_special_tokens=False)
            calls = self.calls_by_id.get(getattr(r, "oracle_task_id", None) or "")
            if calls is None:
                calls = next((c for s, c in self.calls.items() if s in prompt), None)
            if calls is None:
                raise ValueError("OracleEngine: no known task statement in the prompt")
            turn = max(0, prompt.count("<|im_start|>assistant") - 1)
            text = calls[min(turn, len(calls) - 1)]
            ids = self.tokenizer.encode(text, add_special_tokens=False)
            out.append(Completion(ids, [0.0] * len(ids), "stop", 0, self.tokenizer.decode(ids)))
        return out

    def load_adapter(self, path_or_state: Any, version: int) -> None:
        self.policy_version = int(version)


class _OracleAgent(LLMAgent):
    """An `LLMAgent` whose requests name the episode's task (``oracle_task_id``, from the env's
    reset info), so that an `OracleEngine` picks that task's calls even where several tasks share
    a problem statement (every ``lookup`` instance has the same one)."""

    def reset(self, info: dict[str, Any] | None = None) -> None:
        super().reset(info)
        self.oracle_task_id = (info or {}).get("task_id")

    def prepare(self, messages: list[dict[str, Any]], info: dict[str, Any]) -> Any:
        request = super().prepare(messages, info)
        if request is not None:
            request.oracle_task_id = self.oracle_task_id
        return request


def oracle_agent(engine: Any, tokenizer: Any, **kwargs: Any) -> LLMAgent:
    """An `_OracleAgent` over `engine` (an `OracleEngine`)."""
    return _OracleAgent(engine, tokenizer, **kwargs)


def oracle_episodes(make_env: Callable[[], Any], tokenizer: Any, tasks: Sequence[Any], *, repeats: int = 1,
                    max_envs: int = 4, seed: int = 0, flawed: Collection[str] = ()) -> list[Episode]:
    """Compact-oracle episodes through real envs, rendered by an `LLMAgent`; only reward-1 episodes,
    except for the tasks in `flawed` (instance ids): their flawed demonstrations are kept whatever
    they scored (an imitation of the flaw, e.g. a guess that was wrong)."""
    from .rollout import collect

    flawed = set(flawed)
    engine = OracleEngine(tokenizer, tasks, flawed)
    agent = oracle_agent(engine, tokenizer, max_new_tokens=4096, temperature=1.0, stop_at_call=True)
    episodes = collect(make_env, agent, [t.instance_id for t in tasks], group_size=repeats, max_envs=max_envs,
                       seed=seed, batch_id="sft")
    good = [e for e in episodes if e.train_mask and (e.reward >= 1.0 or e.task_id in flawed)]
    if not good:
        raise RuntimeError("no oracle episode scored 1: check the env (max_turns must allow the oracle's calls)")
    return good


def sft(models: Any, episodes: Sequence[Episode], *, steps: int = 40, lr: float = 1e-3, batch_rows: int = 8,
        seed: int = 0, max_grad_norm: float = 1.0, on_step: Callable[[int, float], None] | None = None,
        full: bool = False, target_success: float | None = None, eval_every: int = 1,
        history: list[dict[str, Any]] | None = None, target_tolerance: float = 0.02,
        max_seconds: float | None = None, decay: bool = False) -> list[float]:
    """Train on the episodes' completion tokens; returns the loss per step.

    `max_seconds` stops training after that much wall time (`steps` stays the cap): "SFT continued
    for the same compute" as an RL run, the learning benchmark's control.

    `decay`: the learning rate falls linearly to 0, ``lr_k = lr * (1 - progress)`` with progress
    the larger of ``k / steps`` and ``elapsed / max_seconds``. Without it a full-weight warm start
    ends wherever its last few batches of 8 put it: on `lookup` demonstrations, 40% of which read
    first, P(read) of the tiny base swung between 0.23 and 0.71 from one 50-step check to the
    next at a constant lr 1e-3.

    `models` is a `PolicyCritic` (its `policy` adapter learns) or, with ``full=True``, a plain
    causal LM whose every weight learns (a warm-started *base* for `model.base`).

    With `target_success`, every `eval_every` steps (and before the first) the *oracle success*
    is measured: the mean over episodes of exp(total logprob of the episode's completion tokens)
    at temperature 1, i.e. the probability that sampling reproduces the oracle's whole episode,
    a lower bound of the pass rate at T=1 (no env run needed). Training stops as soon as it
    reaches the target (`steps` stays the cap). Near the end one full-weight step can move the
    success a lot (0.14 -> 0.29 at lr 1e-2), so a check that overshoots by more than
    `target_tolerance` bisects the blend of the weights before and after the steps since the last
    check until the success lies in [target, target + tolerance] (a few forward passes).
    `history` receives ``{"step", "loss", "success"}`` rows (step = optimizer steps done; plus
    ``blend`` where the weights were blended).
    """
    import torch

    from .data import to_sequences
    from .models import token_logprobs

    if full:
        model = models
        params = [p for p in model.parameters()]
        for p in params:
            p.requires_grad_(True)
        device = next(model.parameters()).device
        pad = model.config.pad_token_id or 0

        def logprobs(ids, attn):
            return token_logprobs(model(input_ids=ids, attention_mask=attn, use_cache=False).logits, ids, 1.0)
    else:
        params, device, pad = models.policy_parameters(), models.device, models.tokenizer.pad_token_id
        models.use_policy()

        def logprobs(ids, attn):
            return models.policy_logprobs(ids, attn, 1.0)

    batch = to_sequences(episodes, pad)
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=0.0)
    rng = random.Random(seed)
    rows = list(range(batch.num_rows))
    losses: list[float] = []

    def success() -> float:
        return oracle_success(logprobs, batch, device)

    snapshot: list[Any] = []
    if target_success is not None:
        models.train(False)
        s0 = success()
        if history is not None:
            history.append({"step": 0, "loss": None, "success": s0})
        if s0 >= target_success:
            return losses
        snapshot = [p.detach().clone() for p in params]
    models.train(True)
    t_start = time.monotonic()
    for step in range(steps):
        if max_seconds is not None and time.monotonic() - t_start >= max_seconds:
            break
        if decay:
            progress = step / max(1, steps)
            if max_seconds:
                progress = max(progress, (time.monotonic() - t_start) / max_seconds)
            for g in opt.param_groups:
                g["lr"] = lr * max(0.0, 1.0 - progress)
        pick = rng.sample(rows, min(batch_rows, len(rows)))
        w = int(batch.attention_mask[pick].sum(-1).max())
        ids = batch.input_ids[pick, :w].to(device)
        attn = batch.attention_mask[pick, :w].to(device)
        mask = batch.completion_mask[pick, :w].float().to(device)
        lp = logprobs(ids, attn)
        loss = -(lp * mask).sum() / mask.sum().clamp(min=1.0)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, max_grad_norm)
        opt.step()
        losses.append(float(loss.detach()))
        s1 = None
        if target_success is not None and ((step + 1) % max(1, eval_every) == 0 or step + 1 == steps):
            models.train(False)
            s1 = success()
            blend = None
            if s1 > target_success + target_tolerance:  # overshot: land on the target between the two checks
                s1, blend = _land(params, snapshot, success, target_success, target_tolerance)
            models.train(True)
            if s1 < target_success:
                snapshot = [p.detach().clone() for p in params]
            if history is not None:
                history.append({"step": step + 1, "loss": losses[-1], "success": s1,
                                **({} if blend is None else {"blend": blend})})
        if on_step is not None:
            on_step(step, losses[-1])
        if s1 is not None and s1 >= target_success:
            break
    models.train(False)
    return losses


def _land(params: Sequence[Any], before: Sequence[Any], success: Callable[[], float], target: float, tol: float,
          rounds: int = 8) -> tuple[float, float]:
    """Bisect the blend a in ``before + a * (now - before)`` (success(before) < target <= success(now)) for
    a success in [target, target + tol]; leaves the params at the found blend, returns (success, a)."""
    import torch

    now = [p.detach().clone() for p in params]
    lo, hi, s_hi = 0.0, 1.0, float("inf")

    def put(a: float) -> None:
        with torch.no_grad():
            for p, b, n in zip(params, before, now, strict=True):
                p.copy_(b + a * (n - b))

    for _ in range(rounds):
        mid = (lo + hi) / 2
        put(mid)
        s = success()
        if s >= target:
            hi, s_hi = mid, s
            if s <= target + tol:
                break
        else:
            lo = mid
    if s_hi == float("inf"):  # no blend below 1 reached the target: keep the trained params
        put(1.0)
        return success(), 1.0
    put(hi)
    return s_hi, hi


def oracle_success(logprobs: Callable[[Any, Any], Any], batch: Any, device: Any, rows_per_pass: int = 8) -> float:
    """Mean over episodes of exp(sum of the completion tokens' logprobs) (the segments of an episode
    are summed): the probability of sampling each oracle episode exactly at temperature 1."""
    import torch

    totals: dict[int, float] = {}
    with torch.no_grad():
        for i in range(0, batch.num_rows, rows_per_pass):
            pick = list(range(i, min(i + rows_per_pass, batch.num_rows)))
            w = int(batch.attention_mask[pick].sum(-1).max())
            ids = batch.input_ids[pick, :w].to(device)
            attn = batch.attention_mask[pick, :w].to(device)
            mask = batch.completion_mask[pick, :w].float().to(device)
            row_lp = (logprobs(ids, attn).float() * mask).sum(-1).cpu().tolist()
            for r, lp in zip(pick, row_lp, strict=True):
                e = int(batch.episode_index[r])
                totals[e] = totals.get(e, 0.0) + lp
    if not totals:
        return 0.0
    return sum(math.exp(v) for v in totals.values()) / len(totals)


def run_sft(cfg: Any, out_dir: str, *, steps: int = 40, lr: float = 1e-3, batch_rows: int = 8,
            task_ids: Sequence[str] | None = None, repeats: int = 1, full: bool = False,
            target_success: float | None = -1.0, eval_every: int | None = None,
            say: Callable[[str], None] | None = None) -> dict[str, Any]:
    """`codegym sft`: oracle episodes on the config's env and tasks, then SFT of a fresh policy adapter
    saved to ``out_dir/policy`` (set ``model.init_adapter`` to it), or with ``full=True`` of every
    weight of the base, saved to ``out_dir/model`` (set ``model.base`` to it; for tiny random bases,
    where LoRA alone learns too slowly).

    `target_success`/`eval_every` default to the config's ``sft.target_success``/``sft.eval_every``:
    training stops once the oracle success (`oracle_success`) reaches the target. The summary
    holds ``success`` (the last measured value) and ``sft.json`` the measured history."""
    from pathlib import Path

    import torch

    from .loop import default_make_env
    from .models import build_models

    torch.manual_seed(cfg.run.seed)
    make_env = default_make_env(cfg)
    env = make_env()
    try:
        all_tasks = list(env.unwrapped.tasks)
    finally:
        env.close()
    wanted = list(task_ids or cfg.env.tasks or [t.instance_id for t in all_tasks])
    tasks = [t for t in all_tasks if t.instance_id in set(wanted)]
    model_cfg = cfg.model
    if model_cfg.init_adapter:  # SFT starts from a fresh adapter
        from dataclasses import replace

        model_cfg = replace(model_cfg, init_adapter=None)
    if target_success is not None and target_success < 0:
        target_success = cfg.sft.target_success
    eval_every = cfg.sft.eval_every if eval_every is None else eval_every
    history: list[dict[str, Any]] = []

    def on_step(step: int, loss: float) -> None:
        if say is not None and history and history[-1]["step"] == step + 1 and (step + 1) % 10 == 0:
            say(f"[sft] step {step + 1}: loss {loss:.3f}, oracle success {history[-1]['success']:.3f}")

    kw = dict(steps=steps, lr=lr, batch_rows=batch_rows, seed=cfg.run.seed, target_success=target_success,
              eval_every=eval_every, history=history, on_step=on_step)
    out = Path(out_dir)
    if full:
        from .models import load_base

        model, tok = load_base(model_cfg)
        episodes = oracle_episodes(make_env, tok, tasks, repeats=repeats, seed=cfg.run.seed)
        losses = sft(model, episodes, full=True, **kw)
        path = out / "model"
        model.save_pretrained(str(path))
        tok.save_pretrained(str(path))
    else:
        models = build_models(model_cfg, critic="none")
        episodes = oracle_episodes(make_env, models.tokenizer, tasks, repeats=repeats, seed=cfg.run.seed)
        losses = sft(models, episodes, **kw)
        path = models.save_policy_adapter(out / "policy")
    summary = {"episodes": len(episodes), "tasks": [t.instance_id for t in tasks], "steps": len(losses),
               "max_steps": steps, "lr": lr, "full": full, "target_success": target_success,
               "success": history[-1]["success"] if history else None, "first_loss": losses[0] if losses else None,
               "last_loss": losses[-1] if losses else None, "adapter" if not full else "base": str(path)}
    (out / "sft.json").write_text(json.dumps({**summary, "losses": losses, "history": history}, indent=2))
    return summary


@dataclass(frozen=True)
class CopyStage:
    """One stage of `copy_pretrain`: `steps` optimizer steps on `rows` synthetic rows of `width`
    token ids, each holding a span of ``span[0]..span[1]`` ids and a later copy of it.

    ``fixed_offset``: the copy sits right after the span and a noise of fixed length (the layout
    ``noise, s, noise', s``), so a head that looks a fixed distance back solves it; otherwise the
    span and its copy sit at random places, so only matching content does (an induction head).
    ``stop_loss``: end the stage once the mean loss of its last 20 steps is below it.
    ``warmup``: raise the learning rate linearly from 0 over the stage's first steps (the first rows
    of a new width are far off: loss 9.5 at 640 for a head formed at 96)."""

    steps: int
    width: int
    rows: int
    span: tuple[int, int]
    fixed_offset: bool = False
    stop_loss: float | None = None
    lr: float | None = None  # the stage's learning rate (None: copy_pretrain's)
    warmup: int = 0


#: the curriculum that forms an induction head in the tiny base (measured: docs/training.md).
#: Copying at a fixed offset first (~400 steps: the output side of copying); then at random
#: offsets on short rows, where a content-matching head forms after a plateau (~550 steps,
#: 6.6 -> 0.2 within 150); then on rows as long as the task's contexts (``width=None``: set by
#: the caller), because a head trained on 96-token rows does not copy at 256 (loss 11). The long
#: stage sits on a plateau near 7.1 for 100-250 steps before the head carries over; with 500 steps
#: whether it got out in time was a matter of float noise (2026-12-04: the same seed ended at 2.04 on
#: one machine and 0.52 on another), so it runs up to 1,200 (mean of its last 100: 0.49 and 0.43 on
#: tiny seeds 0 and 1 at width 640) after a 50-step warmup.
COPY_STAGES = (
    CopyStage(steps=400, width=80, rows=32, span=(24, 24), fixed_offset=True),
    CopyStage(steps=1500, width=96, rows=32, span=(8, 40), stop_loss=0.3, lr=2e-3),
    CopyStage(steps=1200, width=512, rows=8, span=(8, 64), stop_loss=0.3, lr=2e-3, warmup=50),
)


def copy_rows(gen: Any, allowed: Any, stage: CopyStage) -> tuple[Any, Any]:
    """``(ids, mask)`` [rows, width]: random ids from `allowed`, each row with a span of random
    length and a later copy of it; `mask` is 1 on the copy's tokens after its first (the first
    cannot be predicted from the context: only the ones after it are copies of what followed).

    With ``stage.fixed_offset`` the row is ``noise, s, noise', s`` (noise of ``(width - 2k) / 2``)."""
    import torch

    n, w = stage.rows, stage.width
    ids = allowed[torch.randint(len(allowed), (n, w), generator=gen)]
    mask = torch.zeros(n, w)
    lo, hi = stage.span
    for r in range(n):
        k = int(torch.randint(lo, min(hi, w // 2) + 1, (1,), generator=gen))
        if stage.fixed_offset:
            gap = (w - 2 * k) // 2
            p1, p2 = gap, 2 * gap + k
        else:
            p1 = int(torch.randint(0, w - 2 * k + 1, (1,), generator=gen))
            p2 = int(torch.randint(p1 + k, w - k + 1, (1,), generator=gen))
        ids[r, p2: p2 + k] = ids[r, p1: p1 + k]
        mask[r, p2 + 1: p2 + k] = 1
    return ids, mask


def copy_pretrain(model: Any, vocab_size: int, *, stages: Sequence[CopyStage] = COPY_STAGES, width: int | None = None,
                  steps: int | None = None, lr: float = 1e-3, seed: int = 0, max_seconds: float | None = None,
                  skip_ids: Sequence[int] = (), on_step: Callable[[int, float], None] | None = None) -> list[float]:
    """Teach a randomly initialized base to copy from its context before any task data: full-weight
    next-token training on synthetic rows (`copy_rows`: a span of random ids and a later copy of
    it), the loss on the copy only, through `stages` (`COPY_STAGES`). That is the induction-head
    task (Olsson et al. 2022). `width` replaces the width of the last stage (make it as long as
    the task's contexts: the head does not copy over longer ones). `steps` caps the steps of all
    stages together.

    The stages matter (measured on the tiny base): with the copy at a fixed offset alone, the base
    learns to look that far back and copies nothing in a task's context (value accuracy at chance);
    random offsets from a random base stay at chance for 800 steps; after the fixed-offset stage
    they form the head.

    No task text is used (ids are drawn uniformly from ``range(vocab_size)`` minus `skip_ids`, e.g.
    the special tokens), so nothing of a train or held-out instance reaches the base. Returns the
    loss per step."""
    import torch

    gen = torch.Generator().manual_seed(seed)
    allowed = torch.tensor([i for i in range(vocab_size) if i not in set(skip_ids)])
    params = list(model.parameters())
    for p in params:
        p.requires_grad_(True)
    device = next(model.parameters()).device
    model.train(True)
    losses: list[float] = []
    t0 = time.monotonic()
    stages = list(stages)
    if width is not None and stages:
        stages[-1] = replace(stages[-1], width=width)
    for stage in stages:
        rate = stage.lr or lr
        opt = torch.optim.AdamW(params, lr=rate, weight_decay=0.0)
        mine: list[float] = []
        for i in range(stage.steps):
            if stage.warmup:
                for group in opt.param_groups:
                    group["lr"] = rate * min(1.0, (i + 1) / stage.warmup)
            if (max_seconds is not None and time.monotonic() - t0 >= max_seconds) or (
                    steps is not None and len(losses) >= steps):
                break
            ids, mask = copy_rows(gen, allowed, stage)
            ids, mask = ids.to(device), mask[:, 1:].to(device)
            logits = model(input_ids=ids, use_cache=False).logits[:, :-1].float()
            lp = torch.log_softmax(logits, -1).gather(-1, ids[:, 1:, None])[..., 0]
            loss = -(lp * mask).sum() / mask.sum().clamp(min=1.0)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            losses.append(float(loss.detach()))
            mine.append(losses[-1])
            if on_step is not None:
                on_step(len(losses) - 1, losses[-1])
            if stage.stop_loss is not None and len(mine) >= 20 and sum(mine[-20:]) / 20 < stage.stop_loss:
                break
    model.train(False)
    return losses
