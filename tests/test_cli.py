"""The `codegym` command: doctor, images, eval."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from typer.testing import CliRunner

from codegym.cli import app

runner = CliRunner()


def test_doctor_reports_every_piece():
    result = runner.invoke(app, ["doctor"])
    assert result.exit_code == 0, result.output
    for piece in ("docker engine", "sandbox images", "bubblewrap", "torch"):
        assert piece in result.output


def test_images_build_is_a_no_op_when_unchanged_and_list_shows_it(python_image):
    result = runner.invoke(app, ["images", "build"])
    assert result.exit_code == 0 and python_image in result.output
    assert "building" not in result.output
    listing = runner.invoke(app, ["images", "list"], terminal_width=200)
    assert python_image.split(":")[1] in listing.output


def test_image_tag_is_content_addressed(tmp_path, monkeypatch):
    from codegym.sandbox import images

    spec = images.image_specs()["python"]
    copy = tmp_path / "python"
    copy.mkdir()
    (copy / "Dockerfile").write_text((spec.context / "Dockerfile").read_text())
    same = images.image_tag(images.ImageSpec("python", copy), "base:1")
    assert same == images.image_tag(spec, "base:1")
    (copy / "Dockerfile").write_text((spec.context / "Dockerfile").read_text() + "\n# changed\n")
    assert images.image_tag(images.ImageSpec("python", copy), "base:1") != same
    assert images.image_tag(spec, "base:2") != same


def test_eval_writes_episodes_and_summary(tmp_path):
    result = runner.invoke(app, ["eval", "--agent", "oracle", "--suite", "toy", "--limit", "3", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    lines = (tmp_path / "episodes.jsonl").read_text().splitlines()
    assert len(lines) == 3
    ep = json.loads(lines[0])
    assert ep["reward"] == 1.0 and ep["messages"] and ep["steps"][0]["tool_call"]["name"] == "bash"
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["pass_rate"] == 1.0 and summary["episodes"] == 3


def _train_config(tmp_path, **env):
    """A tiny one-task training config (tiny model, 2 rollouts of 2 turns) as a YAML file."""
    import yaml

    data = {"algorithm": {"name": "grpo"}, "model": {"lora_r": 4, "lora_alpha": 8},
            "env": {"tasks": ["toy-add-typo"], "max_turns": 2,
                    "kwargs": {"backend": "docker", "tools": ["create", "submit"]}, **env},
            "rollout": {"tasks_per_iteration": 1, "group_size": 2, "max_new_tokens": 8, "max_envs": 2},
            "run": {"iterations": 1, "out_dir": str(tmp_path / "not-here"), "progress": False, "tensorboard": False}}
    path = tmp_path / "train.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_train_refuses_an_unknown_env_id_before_training(tmp_path):
    result = runner.invoke(app, ["train", str(_train_config(tmp_path, id="codegym/Nope-v0"))])
    assert result.exit_code == 2, result.output
    assert "env.id 'codegym/Nope-v0' is not a registered Gymnasium id" in result.output
    assert not (tmp_path / "not-here").exists()


def test_train_stops_with_the_reasons_when_every_episode_is_masked(tmp_path):
    config = _train_config(tmp_path, kwargs={"backend": "docker", "no_such_option": 1})  # a typo in env.kwargs
    result = runner.invoke(app, ["train", str(config)], terminal_width=400)
    assert result.exit_code == 1, result.output
    assert "training stopped: iteration 0: 2/2 episodes masked: 2x start_error: TypeError" in result.output
    assert "no_such_option" in result.output and "done:" not in result.output


def test_train_resume_continues_in_the_run_directory(tmp_path):
    config, run = _train_config(tmp_path), tmp_path / "run"
    first = runner.invoke(app, ["train", str(config), "--out", str(run)])
    assert first.exit_code == 0, first.output
    again = runner.invoke(app, ["train", str(config), "--resume", str(run / "checkpoints" / "iter-000001"),
                                "--iterations", "2"])
    assert again.exit_code == 0, again.output
    assert "done: 2 iterations" in again.output
    assert (run / "checkpoints" / "iter-000002" / "trainer_state.pt").exists()
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in rows] == [0, 1]
    assert not (tmp_path / "not-here").exists()  # not the config's run.out_dir


def _codegym(*args: str, **env: str) -> subprocess.CompletedProcess:
    """`codegym ARGS` as a user runs it (the console entry point's `main`)."""
    return subprocess.run([sys.executable, "-m", "codegym.cli", *args], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=600)


def test_a_cli_mistake_is_one_line_and_exit_code_2_with_the_traceback_behind_debug():
    proc = _codegym("eval", "--agent", "orcale", "--suite", "toy")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("codegym: unknown agent 'orcale'; did you mean 'oracle'?")
    proc = _codegym("tasks", "list", "nope-suite")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "'nope-suite' is neither a built-in suite" in proc.stderr
    proc = _codegym("tasks", "list", "nope-suite", "--debug")
    assert proc.returncode != 0 and "Traceback" in proc.stderr and "FileNotFoundError" in proc.stderr


def test_doctor_names_a_bad_docker_host():
    result = runner.invoke(app, ["doctor"], env={"DOCKER_HOST": "unix:///nonexistent/docker.sock", "COLUMNS": "400"})
    assert result.exit_code == 1, result.output
    assert "DOCKER_HOST is set to 'unix:///nonexistent/docker.sock'" in result.output
    assert "unset DOCKER_HOST" in result.output


def test_eval_of_a_trained_adapter_uses_its_base(tmp_path):
    # A checkpoint as the trainer writes it: CHECKPOINT/policy (the adapter) and CHECKPOINT/config.yaml.
    import torch

    from codegym.evaluation import adapter_agent
    from codegym.trainer.config import TrainConfig, dump_config
    from codegym.trainer.models import build_models

    cfg = TrainConfig()
    models = build_models(cfg.model, critic="none")
    with torch.no_grad():
        for name, p in models.model.named_parameters():
            if "lora_B" in name:
                p.fill_(0.01)  # a trained adapter: not the zero update of a fresh one
    models.save_policy_adapter(tmp_path / "ckpt" / "policy")
    dump_config(cfg, tmp_path / "ckpt" / "config.yaml")
    agent = adapter_agent(tmp_path / "ckpt" / "policy")
    loaded = {n: p for n, p in agent.engine.model.named_parameters() if "lora_B" in n}
    assert loaded and all(torch.all(p == 0.01) for p in loaded.values())

    out = tmp_path / "eval"
    result = runner.invoke(app, ["eval", "--adapter", str(tmp_path / "ckpt" / "policy"), "--suite", "toy",
                                 "--limit", "1", "--max-turns", "1", "--max-new-tokens", "8", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "eval: agent ready" in result.output and "eval: 1/1 " in result.output
    assert json.loads((out / "summary.json").read_text())["episodes"] == 1
    # an adapter alone, with no run around it, needs to be told its base
    (tmp_path / "ckpt" / "config.yaml").unlink()
    result = runner.invoke(app, ["eval", "--adapter", str(tmp_path / "ckpt" / "policy"), "--suite", "toy"])
    assert result.exit_code == 2 and "pass --base" in result.output
