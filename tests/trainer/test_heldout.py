"""Held-out evaluation: pass@1 through the real env (Docker, guards on) with the oracle's calls
scores 1 on every held-out family instance and an agent that submits at once 0; the paired
bootstrap and the Wilson intervals say what they promise; the tiny tokenizer never saw a held-out
instance or its solution."""

from __future__ import annotations

import pytest

from codegym.tasks.suites.families import family_tasks
from codegym.trainer.heldout import paired_bootstrap


def test_paired_bootstrap_difference_and_interval():
    a = [True] * 30 + [False] * 10
    b = [True] * 10 + [False] * 30
    d, (lo, hi) = paired_bootstrap(a, b, seed=1)
    assert d == pytest.approx(0.5)
    assert lo < 0.5 < hi and lo > 0.25 and hi < 0.75  # a clear difference: the interval excludes 0
    same, (lo0, hi0) = paired_bootstrap(a, a)
    assert same == 0 and lo0 == hi0 == 0  # identical results: no spread
    d2, (lo2, hi2) = paired_bootstrap([True, False] * 10, [False, True] * 10)
    assert d2 == 0 and lo2 < 0 < hi2
    with pytest.raises(ValueError, match="equally long"):
        paired_bootstrap([True], [True, False])


def test_the_tiny_tokenizer_saw_no_family_instance():
    from codegym.agents.tiny import tiny_corpus
    from codegym.trainer.sft import compact_oracle_calls

    corpus = "\n".join(tiny_corpus())
    for split in ("train", "heldout"):
        for t in family_tasks(split)[::25]:
            assert t.problem_statement.strip() not in corpus
            # the solution: each demonstrated call (its paths, file texts, replacements) as the policy emits it
            for call in compact_oracle_calls(t)[:-1]:  # the last is the generic submit
                assert call not in corpus, (t.instance_id, call)
            for c in t.metadata["demonstration"]:  # a new file's whole text (a one-line replacement
                text = c["arguments"].get("file_text")  # such as `return x * 2` is generic code)
                assert not text or text not in corpus, (t.instance_id, text)


@pytest.mark.docker
def test_heldout_eval_scores_the_oracle_1_and_an_empty_submit_0():
    from codegym.agents.engines import ScriptedEngine
    from codegym.agents.tiny import build_tiny_tokenizer
    from codegym.trainer.config import config_from_dict
    from codegym.trainer.heldout import HeldoutEval, heldout_config
    from codegym.trainer.sft import OracleEngine

    # noisy_log: the OracleEngine finds the task by its statement here (HeldoutEval's agent does not
    # name it), and every lookup instance has the same statement
    tasks = family_tasks("heldout", "noisy_log")[:4]
    cfg = heldout_config(config_from_dict({
        "env": {"id": "codegym/Families-v0", "max_turns": 3,
                "kwargs": {"split": "train", "families": ["noisy_log"], "tools": ["view", "create", "submit"]}},
        "rollout": {"max_new_tokens": 4096, "stop_at_call": True, "max_envs": 4}}))
    assert cfg.env.kwargs["split"] == "heldout"
    tok = build_tiny_tokenizer()
    ev = HeldoutEval(cfg, [t.instance_id for t in tasks])
    oracle = ev.run(OracleEngine(tok, tasks), tok, 1.0, name="oracle")
    assert oracle.passed == [True] * 4 and oracle.rate.value == 1.0 and oracle.masked == 0
    assert oracle.rate.interval[0] > 0.4  # Wilson: 4/4 is not certainty
    submit = ev.run(ScriptedEngine(tok, ['<tool_call>{"name": "submit", "arguments": {}}</tool_call>']), tok, 0.0)
    assert submit.passed == [False] * 4 and submit.name == "T=0"
    assert set(oracle.to_dict()["passed"]) == {t.instance_id for t in tasks}


def _study(tmp_path):
    from codegym.trainer.config import config_from_dict
    from codegym.trainer.learning import LearningStudy

    cfg = config_from_dict({"env": {"id": "codegym/Families-v0", "max_turns": 3,
                                    "kwargs": {"split": "train", "families": ["lookup"]}}})
    return LearningStudy(cfg, ["a", "b"], [f"h{i}" for i in range(40)], tmp_path, say=lambda m: None)


def _first_k_passed(ids):
    """`res(t, k)`: an evaluation at temperature `t` in which the first `k` of `ids` passed."""
    from codegym.trainer.heldout import EvalResult

    return lambda t, k: EvalResult("x", t, ids, [i < k for i in range(len(ids))])


def test_the_verdict_compares_each_rl_arm_with_the_best_control_at_any_temperature(tmp_path):
    from codegym.trainer.config import config_from_dict
    from codegym.trainer.learning import LearningStudy

    study = _study(tmp_path)
    res = _first_k_passed(study.heldout_ids)

    study._record("warm start", [res(0.0, 8), res(1.0, 4)], kind="start")
    study._record("warm T=0.5", [res(0.5, 10)], kind="control")  # the best control: 10/40 at T=0.5
    study._record("sft-continued", [res(0.0, 6), res(1.0, 5)], kind="control")
    study._record("gigpo", [res(0.0, 24), res(1.0, 12)], kind="rl")
    v = study.verdict()["gigpo"]
    assert v["greedy"]["best_control"] == "warm T=0.5 (T0.5)" and v["greedy"]["best_control_pass"] == 0.25
    assert v["greedy"]["delta"] == pytest.approx(0.35) and v["greedy"]["holds"]  # 0.60 > 0.25 + 0.10, above its CI
    assert v["T1"]["delta"] == pytest.approx(0.05) and not v["T1"]["holds"]  # 0.30: not 0.10 above 0.25
    lo, hi = v["greedy"]["delta_ci95"]
    assert lo < 0.35 < hi
    table = study.table()
    assert "0.600 [" in table and "holds" in table and "misses" in table
    with pytest.raises(ValueError, match="overlap"):
        LearningStudy(study.cfg, ["h1"], ["h1"], tmp_path)
    held_cfg = config_from_dict({"env": {"id": "codegym/Families-v0", "kwargs": {"split": "heldout"}}})
    with pytest.raises(ValueError, match="train split"):
        LearningStudy(held_cfg, ["a"], ["b"], tmp_path)


def test_replicates_of_an_arm_report_their_spread_and_each_counts_as_a_control(tmp_path):
    study = _study(tmp_path)
    res = _first_k_passed(study.heldout_ids)

    study._record("warm start", [res(0.0, 4), res(1.0, 8)], kind="start")
    for name, (g, t1) in {"gigpo shuffled": (6, 8), "gigpo shuffled r2": (38, 7), "gigpo shuffled r3": (4, 6)}.items():
        study._record(name, [res(0.0, g), res(1.0, t1)], kind="control", replicate_of="gigpo shuffled")
    study._record("gigpo", [res(0.0, 39), res(1.0, 34)], kind="rl", replicate_of="gigpo")
    spread = study.spread()
    assert set(spread) == {"gigpo shuffled"}  # one run of gigpo: no spread to report
    g = spread["gigpo shuffled"]["greedy"]
    assert g["runs"] == [0.15, 0.95, 0.1] and g["min"] == 0.1 and g["max"] == 0.95
    assert g["mean"] == pytest.approx(0.4)
    v = study.verdict()["gigpo"]
    # the replicate whose greedy flipped is the best control: 0.975 vs 0.95 misses
    assert v["greedy"]["best_control"] == "gigpo shuffled r2 (greedy)" and not v["greedy"]["holds"]
    assert "gigpo shuffled, 3 replicates: greedy mean 0.400 (min 0.100, max 0.950" in study.table()


@pytest.mark.docker
def test_flawed_demonstrations_skip_the_read_and_are_kept_whatever_they_scored():
    from codegym.agents.tiny import build_tiny_tokenizer
    from codegym.trainer.config import config_from_dict
    from codegym.trainer.loop import default_make_env
    from codegym.trainer.sft import oracle_episodes

    tasks = family_tasks("train", "lookup")[:8]
    guessed_right = {t.instance_id for t in tasks if t.metadata["flawed_demonstration"][0]["arguments"]["file_text"]
                     == t.patch.splitlines()[-1][1:] + "\n"}
    cfg = config_from_dict({
        "env": {"id": "codegym/Families-v0", "max_turns": 3, "tasks": [t.instance_id for t in tasks],
                "kwargs": {"split": "train", "families": ["lookup"], "tools": ["view", "create", "submit"]}},
        "rollout": {"max_envs": 8}})
    flawed = {t.instance_id for t in tasks[:6]}
    episodes = oracle_episodes(default_make_env(cfg), build_tiny_tokenizer(), tasks, max_envs=8, flawed=flawed)
    by_task = {e.task_id: e for e in episodes}
    assert set(by_task) == {t.instance_id for t in tasks}  # a wrong guess is kept: it is what is imitated
    for tid, e in by_task.items():
        names = [s.tool_name for s in e.steps]
        if tid in flawed:
            assert names == ["create", "submit"] and e.reward == (1.0 if tid in guessed_right else 0.0)
        else:
            assert names == ["view", "create", "submit"] and e.reward == 1.0


def test_copy_pretraining_teaches_the_random_base_to_copy_from_its_context():
    import math

    import torch

    from codegym.agents.tiny import build_tiny_model, build_tiny_tokenizer
    from codegym.trainer.sft import copy_pretrain

    torch.set_num_threads(1)
    tok = build_tiny_tokenizer()
    # the first stage (the copy at a fixed offset): fast, and below chance only by copying
    losses = copy_pretrain(build_tiny_model(tok), len(tok), steps=300, seed=0, skip_ids=tok.all_special_ids)
    assert len(losses) == 300
    chance = math.log(len(tok) - len(tok.all_special_ids))  # a random id cannot be predicted otherwise
    assert sum(losses[:10]) / 10 > 0.9 * chance
    assert sum(losses[-20:]) / 20 < 0.6 * chance


def test_copy_rows_put_the_copy_at_a_random_place_after_the_fixed_offset_stage():
    import torch

    from codegym.trainer.sft import COPY_STAGES, CopyStage, copy_rows

    gen = torch.Generator().manual_seed(0)
    allowed = torch.arange(3, 2048)
    fixed, *later = COPY_STAGES
    assert fixed.fixed_offset and not any(st.fixed_offset for st in later)

    def offsets(stage):
        ids, mask = copy_rows(gen, allowed, stage)
        assert ids.shape == mask.shape == (stage.rows, stage.width) and int(ids.min()) >= 3
        out = set()
        for r in range(stage.rows):
            at = mask[r].nonzero()[:, 0].tolist()
            assert at == list(range(at[0], at[-1] + 1)) and stage.span[0] - 1 <= len(at) <= stage.span[1] - 1
            start = at[0] - 1  # the copy's first token (not a target)
            k = len(at) + 1
            # the earlier occurrence: the one place before the copy holding the same k ids
            hits = [p for p in range(0, start - k + 1) if torch.equal(ids[r, p: p + k], ids[r, start: start + k])]
            assert hits, "a target is not a copy of earlier context"
            out.add(start - hits[0])
        return out

    assert offsets(fixed) == {40}  # noise 16, span 24: always 40 back (a positional head solves it)
    spread = offsets(CopyStage(steps=1, width=96, rows=32, span=(8, 40)))
    assert len(spread) > 10  # random places: only matching the content finds the copy


def test_copy_base_is_cached_by_what_determines_it(tmp_path, monkeypatch):
    import torch

    from codegym.trainer.config import ModelConfig
    from codegym.trainer.learning import copy_base
    from codegym.trainer.models import load_base

    monkeypatch.setenv("CODEGYM_CACHE", str(tmp_path))
    torch.set_num_threads(1)
    cfg = ModelConfig(base="tiny")
    said: list[str] = []
    a, tok = load_base(cfg)
    la = copy_base(a, tok, cfg, width=128, steps=3, say=said.append)
    first = list(said)
    b, _ = load_base(cfg)
    lb = copy_base(b, tok, cfg, width=128, steps=3, say=said.append)
    second = said[len(first):]
    assert len(la) == 3 and la == lb
    assert not any("cached (" in m for m in first) and len(second) == 1 and "cached (" in second[0]
    assert all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values(), strict=True))
    fresh, _ = load_base(cfg)
    assert not all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), fresh.state_dict().values(),
                                                      strict=True))  # it did train
    c, _ = load_base(cfg)
    n = len(said)
    copy_base(c, tok, cfg, width=128, steps=4, say=said.append)  # another cap: another entry
    assert not any("cached (" in m for m in said[n:]) and len(list(tmp_path.glob("tiny/copy-*"))) == 2


def test_a_base_that_did_not_learn_to_copy_is_reported_loudly():
    from codegym.trainer.learning import NO_COPY_LOSS, _warn_if_no_copy

    said: list[str] = []
    _warn_if_no_copy([7.3] + [7.12] * 499, 768, said.append)  # the collapsed 768-wide stage, measured
    assert len(said) == 1 and said[0].startswith("WARNING") and "width 768" in said[0] and "7.12" in said[0]
    _warn_if_no_copy([7.3] * 300 + [0.4] * 200, 640, said.append)  # one that learned
    _warn_if_no_copy([7.3] * 5, 128, said.append)  # a few steps (a smoke test) say nothing
    assert len(said) == 1 and NO_COPY_LOSS < 7.12


def test_the_long_copy_stage_warms_up_and_a_noisy_last_step_does_not_warn():
    import torch

    from codegym.agents.tiny import build_tiny_model, build_tiny_tokenizer
    from codegym.trainer.learning import _warn_if_no_copy
    from codegym.trainer.sft import COPY_STAGES, CopyStage, copy_pretrain

    assert COPY_STAGES[-1].warmup > 0 and COPY_STAGES[-1].steps >= 1000  # the plateau needs room (docs)
    torch.set_num_threads(1)
    tok = build_tiny_tokenizer()
    stage = CopyStage(steps=3, width=64, rows=2, span=(8, 16))
    rates: list[list[float]] = []
    real = torch.optim.AdamW.step

    def spy(self, *a, **k):
        rates.append([g["lr"] for g in self.param_groups])
        return real(self, *a, **k)

    for warm in (0, 4):
        rates.clear()
        torch.optim.AdamW.step = spy
        try:
            copy_pretrain(build_tiny_model(tok), len(tok), stages=[CopyStage(**{**stage.__dict__, "warmup": warm})],
                          lr=1e-3, skip_ids=tok.all_special_ids)
        finally:
            torch.optim.AdamW.step = real
        got = [r[0] for r in rates]
        assert got == ([1e-3] * 3 if not warm else [2.5e-4, 5e-4, 7.5e-4])
    said: list[str] = []
    _warn_if_no_copy([7.3] * 300 + [0.4] * 199 + [2.5], 640, said.append)  # one bad step at the end
    assert said == []
